"""CSV cells that a spreadsheet opens as data, never as a formula.

A text cell beginning with =, +, -, @, tab or carriage return is read by
Excel/LibreOffice as a formula (CSV injection, OWASP); a leading single quote
makes it plain text. Numbers are written as numbers: -3.5 stays a number.
"""

import csv
import io
import math
from collections.abc import Iterable
from datetime import UTC, datetime

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def safe_text(text: str) -> str:
    """The text, with a leading quote if a spreadsheet would evaluate it."""
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def iso_utc(ts: datetime) -> str:
    """ISO 8601 in UTC with a Z, to the second unless the time has a fraction."""
    ts = ts.astimezone(UTC)
    spec = "microseconds" if ts.microsecond else "seconds"
    return ts.isoformat(timespec=spec).replace("+00:00", "Z")


def cell(value: object) -> object:
    """One value as the csv module should write it."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, float) and not math.isfinite(value):
        return ""
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)  # a delta of 5719 reads as 5719, not 5719.0
    if isinstance(value, int | float):
        return value  # csv writes repr(): exact, and a minus sign stays a number
    if isinstance(value, datetime):
        return iso_utc(value)
    return safe_text(str(value))


class CsvLines:
    """Formats rows into CSV text one at a time, for a streaming response."""

    def __init__(self) -> None:
        self._buffer = io.StringIO()
        self._writer = csv.writer(self._buffer, lineterminator="\r\n")

    def line(self, row: Iterable[object]) -> str:
        self._writer.writerow([cell(v) for v in row])
        text = self._buffer.getvalue()
        self._buffer.seek(0)
        self._buffer.truncate()
        return text

    def lines(self, rows: Iterable[Iterable[object]]) -> Iterable[str]:
        for row in rows:
            yield self.line(row)
