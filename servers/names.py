"""What a name may hold: no control characters, which a terminal, a CSV reader or a log line would act on.

Django's form fields already refuse NUL; the rest of C0 and C1 (U+0001 to U+001F, DEL, U+0080 to U+009F) went
into fleet.csv, the e-mails and the pages as they were.
"""

import unicodedata

from django.core.exceptions import ValidationError


def control_characters(text: str) -> list[str]:
    """The control characters in text, as U+XXXX, in order of appearance (each once)."""
    found = [f"U+{ord(c):04X}" for c in text if unicodedata.category(c) == "Cc"]
    return list(dict.fromkeys(found))


def printable(text: str) -> None:
    """Model field validator (forms, addserver): the message names the characters and what to do."""
    found = control_characters(text or "")
    if found:
        raise ValidationError(f"A name cannot hold control characters ({', '.join(found)}): use letters, digits, "
                              "spaces and punctuation.", code="control_characters")
