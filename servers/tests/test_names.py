"""What a name or a free text may hold (servers/names.py): bidi overrides are refused as control characters are."""

import pytest
from django.core.exceptions import ValidationError

from servers.names import Printable, control_problem


@pytest.mark.parametrize("text, found", [
    ("invoice\u202etxt.exe", "U+202E"),  # shown as "invoiceexe.txt"
    ("a\u2066b\u2069", "U+2066, U+2069"),
    ("a\u202ab\u202c", "U+202A, U+202C"),
])
def test_it_refuses_a_bidi_override_in_a_name_and_a_text(text, found):
    advice = "use letters, digits, spaces and punctuation"
    assert control_problem("A name", text) == f"A name cannot hold control characters ({found}): {advice}"
    assert control_problem("A text", text, free_text=True) is not None


@pytest.mark.parametrize("text", ["שלום עולם", "db 1 (ü-é)", "👩\u200d💻", "soft\u00adhyphen"])
def test_right_to_left_text_joiners_and_soft_hyphens_stay(text):
    assert control_problem("A name", text) is None


def test_a_validator_names_its_field_and_a_free_text_keeps_tabs_and_line_breaks():
    with pytest.raises(ValidationError) as refused:
        Printable("The host")("db\tx")
    assert refused.value.messages == [
        "The host cannot hold control characters (U+0009): use letters, digits, spaces and punctuation."]
    Printable("The detail", free_text=True)("line 1\n\tline 2\r\n")
    with pytest.raises(ValidationError, match=r"The detail cannot hold control characters \(U\+001B\): use letters, "
                                              r"digits, spaces, punctuation, tabs and line breaks\."):
        Printable("The detail", free_text=True)("a\n\x1b[31m")
