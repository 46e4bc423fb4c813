"""How values read in e-mails and on the pages: 1,234,567, +12,345 and 8 min 52 s."""

from datetime import timedelta


def fmt(value: float | None) -> str:
    if value is None:
        return "n/a"
    if float(value).is_integer() or abs(value) >= 1000:
        return f"{value:,.0f}"
    return f"{value:,.3g}" if abs(value) < 1 else f"{value:,.2f}"


def fmt_growth(value: float | None) -> str:
    if value is None:
        return "n/a"
    return ("+" if value >= 0 else "") + fmt(value)


def fmt_minutes(minutes: float | None) -> str:
    if minutes is None:
        return "n/a"
    return f"{minutes:g} min"


SPAN_UNITS = (("d", 86400), ("h", 3600), ("min", 60), ("s", 1))


def fmt_span(span: timedelta) -> str:
    """In its two largest units (8 min 52 s, 1 h 59 min): "8 min" alone read 52 s short."""
    seconds = max(round(span.total_seconds()), 0)
    big = next((i for i, (_, size) in enumerate(SPAN_UNITS) if seconds >= size), len(SPAN_UNITS) - 1)
    unit, size = SPAN_UNITS[big]
    parts = [f"{seconds // size} {unit}"]
    if big + 1 < len(SPAN_UNITS) and (rest := seconds % size // SPAN_UNITS[big + 1][1]):
        parts.append(f"{rest} {SPAN_UNITS[big + 1][0]}")
    return " ".join(parts)
