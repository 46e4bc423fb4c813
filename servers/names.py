"""What a name or a text may hold: no control characters, which a terminal, a CSV reader or a log line would act on,
nor a bidi override, which turns the text around where it is shown.

Django's form fields already refuse NUL; the rest of C0 and C1 (U+0001 to U+001F, DEL, U+0080 to U+009F) went
into fleet.csv, runs.csv, annotations.csv, the e-mails and the pages as they were. A free text (a run's notes, an
annotation) may still hold tabs and line breaks: the CSVs quote them and the pages show them as spaces.
"""

import unicodedata

from django.core.exceptions import ValidationError
from django.utils.deconstruct import deconstructible

LINE_BREAKS = "\t\n\r"
# The bidi embeddings, overrides and isolates (category Cf, not Cc): "\u202e" shows "txt.exe" as "exe.txt", in a
# page, a terminal or a spreadsheet alike. The other format characters (joiners in an emoji, a soft hyphen) stay.
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
ADVICE = "use letters, digits, spaces and punctuation"
TEXT_ADVICE = "use letters, digits, spaces, punctuation, tabs and line breaks"


def control_characters(text: str, allowed: str = "") -> list[str]:
    """The control characters in text but those allowed, as U+XXXX, in order of appearance (each once)."""
    found = [f"U+{ord(c):04X}" for c in text
             if (unicodedata.category(c) == "Cc" or c in BIDI_CONTROLS) and c not in allowed]
    return list(dict.fromkeys(found))


def control_problem(what: str, text: str, free_text: bool = False) -> str | None:
    """'<what> cannot hold control characters (U+0001): use ...', or None when text holds none (but for a free
    text's tabs and line breaks)."""
    found = control_characters(text or "", LINE_BREAKS if free_text else "")
    if not found:
        return None
    return f"{what} cannot hold control characters ({', '.join(found)}): {TEXT_ADVICE if free_text else ADVICE}"


# The API fields (the server's and the collector's, docs/api.md) that are checked: names, sweeps and labels hold no
# control character; free texts may hold tabs and line breaks. A command line and a tool's own summary are kept as
# the tool gave them (its colours too): no CSV holds them.
API_NAMES, API_FREE_TEXTS = frozenset({"name", "sweep", "label"}), frozenset({"notes", "text"})


def api_text_problem(key: str, value: str) -> str | None:
    """control_problem() of an API body's text field by its key, None for the fields kept as given."""
    if key not in API_NAMES and key not in API_FREE_TEXTS:
        return None
    return control_problem(f"'{key}'", value, free_text=key in API_FREE_TEXTS)


def printable(text: str) -> None:
    """Model field validator of names and labels (forms, addserver): the message names the characters and what
    to do."""
    if problem := control_problem("A name", text):
        raise ValidationError(f"{problem}.", code="control_characters")


def printable_text(text: str) -> None:
    """Model field validator of free texts: as printable, but tabs and line breaks are kept."""
    if problem := control_problem("A text", text, free_text=True):
        raise ValidationError(f"{problem}.", code="control_characters")


@deconstructible
class Printable:
    """Model field validator naming its field: "The host cannot hold control characters (U+0009): use ...".
    With free_text, tabs and line breaks are kept (a detail of several lines)."""

    def __init__(self, what: str, free_text: bool = False) -> None:
        self.what, self.free_text = what, free_text

    def __call__(self, text: str) -> None:
        if problem := control_problem(self.what, text, self.free_text):
            raise ValidationError(f"{problem}.", code="control_characters")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Printable) and (self.what, self.free_text) == (other.what, other.free_text)

    def __hash__(self) -> int:
        return hash((self.what, self.free_text))
