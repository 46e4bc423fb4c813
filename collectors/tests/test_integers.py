"""collectors.source.integers: the values int() gives, one C pass where every text is a plain integer."""

import pytest

from collectors.source import integers


def test_plain_integers_are_read_as_int_reads_them():
    texts = ["0", "42", "-7", " 5", "18446744073709551615", "-9223372036854775808", "-0"]
    found = integers(texts)
    assert found == [0, 42, -7, 5, 18446744073709551615, -9223372036854775808, 0]
    assert all(type(v) is int for v in found)


def test_an_integer_past_64_bits_keeps_every_digit():
    # orjson reads it as a float (18446744073709551616.0 would be 2**64 rounded): int() must read it.
    assert integers(["1", "18446744073709551617"]) == [1, 18446744073709551617]


def test_texts_json_refuses_but_int_reads_are_read_by_int():
    assert integers(["007", "1_000", "+3", "\u20035"]) == [7, 1000, 3, 5]  # leading zeros, underscores, sign, em space


@pytest.mark.parametrize("texts", [["1", "2.5"], ["1", "1e3"], ["true"], ["1,2"], ["1,2", ""], ["[1]"], ["", "4"],
                                   ['"5"'], ["NaN"]])
def test_a_text_that_is_no_integer_fails_as_int_fails(texts):
    with pytest.raises(ValueError):
        integers(texts)


def test_nothing_is_nothing():
    assert integers([]) == []
