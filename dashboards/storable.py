"""What PostgreSQL cannot store in a text column: NUL characters and lone UTF-16 surrogates.

JSON can carry both ("\\u0000", "\\ud800"); left in, they fail the INSERT with an error the user never sees.
"""


def why_unstorable(text: str) -> str | None:
    """What is wrong with text, or None when PostgreSQL can store it."""
    if "\x00" in text:
        return "contains a NUL character (\\u0000)"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "contains a lone UTF-16 surrogate (such as \\ud800), which is no character"
    return None


def first_unstorable(value: object) -> str | None:
    """why_unstorable for the first bad string anywhere in a parsed JSON value (keys too), without recursion."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            problem = why_unstorable(item)
            if problem:
                return problem
        elif isinstance(item, dict):
            pending += list(item.keys()) + list(item.values())
        elif isinstance(item, list):
            pending += item
    return None
