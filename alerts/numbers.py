"""How values read in e-mails and on the alerts page: 1,234,567 and +12,345."""


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
