"""Ids (and small whole numbers such as a warm-up) read from URL text."""

# PostgreSQL's bigint holds 19 digits; 18 keeps any id the database can be asked for,
# and far below Python's int() digit limit.
MAX_DIGITS = 18


def parse_id(text: str | None) -> int | None:
    """The number in text, or None unless it is 1 to 18 ASCII digits.

    str.isdigit() alone also passes '²' and other Unicode digits, which int() refuses.
    """
    text = (text or "").strip()
    if not (0 < len(text) <= MAX_DIGITS and text.isascii() and text.isdigit()):
        return None
    return int(text)
