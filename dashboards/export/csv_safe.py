"""CSV cells that a spreadsheet opens as data, never as a formula.

A text cell beginning with =, +, -, @, tab or carriage return is read by
Excel/LibreOffice as a formula (CSV injection, OWASP); a leading single quote
makes it plain text. Numbers are written as numbers: -3.5 stays a number.

Where the list separator is a semicolon (most of continental Europe), Excel splits a line at each ';':
a text cell holding one is quoted, which keeps it whole where it starts a field, and a formula start
after a ';' or a tab gets the same leading quote, for where it does not (a later column).
"""

import csv
import io
import math
import re
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime

import numpy as np

from store.points import from_micros

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
INNER_STARTS = re.compile(r"(?<=[;\t])(?=[=+\-@\t\r])")  # a formula start right after a separator
MAX_EXACT = 2**53  # integral floats below this are written as integers
BATCH_CHARS = 32_768  # a streamed piece: big enough to be cheap, small enough to flow


class Quoted(str):
    """A text cell written between double quotes whatever it holds: it holds a separator of some locale."""


def safe_text(text: str) -> str:
    """The text, with a leading quote wherever a spreadsheet would start evaluating it."""
    text = "'" + text if text.startswith(FORMULA_STARTS) else text
    if ";" in text or "\t" in text:
        return Quoted(INNER_STARTS.sub("'", text))
    return text


def iso_utc(ts: datetime) -> str:
    """ISO 8601 in UTC with a Z, to the second unless the time has a fraction."""
    ts = ts.astimezone(UTC)
    spec = "microseconds" if ts.microsecond else "seconds"
    return ts.isoformat(timespec=spec).replace("+00:00", "Z")


def iso_utc_many(us: np.ndarray) -> np.ndarray:
    """iso_utc() of Unix microseconds (1970 on), as ASCII bytes: whole seconds at once, others one by one."""
    whole = us % 1_000_000 == 0
    out = np.char.add(np.datetime_as_string(us.astype("datetime64[us]"), unit="s").astype("S"), b"Z")
    if whole.all():
        return out
    texts = out.astype(object)
    for i in np.flatnonzero(~whole).tolist():
        texts[i] = iso_utc(from_micros(int(us[i]))).encode()
    return texts.astype("S")


def cell(value: object) -> object:
    """One value as the csv module should write it."""
    if type(value) is float:  # the common case first: most cells are rates
        if value.is_integer():  # False for nan and inf
            return int(value) if -MAX_EXACT < value < MAX_EXACT else value  # 5719, not 5719.0
        return value if math.isfinite(value) else ""
    if value is None:
        return ""
    if type(value) is bool:
        return int(value)
    if isinstance(value, int | float):
        return value  # csv writes repr(): exact, and a minus sign stays a number
    if isinstance(value, datetime):
        return iso_utc(value)
    return safe_text(str(value))


class Line(str):
    """A row already written as CSV text (its cells made safe and joined), without the line end."""


class Lines(str):
    """Rows already written as CSV text, each with its line end."""


class CsvLines:
    """Formats rows into CSV text, for a streaming response or a file."""

    def __init__(self) -> None:
        self._buffer = io.StringIO()
        self._writer = csv.writer(self._buffer, lineterminator="\r\n")
        # For a row with a Quoted cell: every text cell quoted, numbers written as by the other.
        self._quoting = csv.writer(self._buffer, lineterminator="\r\n", quoting=csv.QUOTE_NONNUMERIC)

    def _take(self) -> str:
        text = self._buffer.getvalue()
        self._buffer.seek(0)
        self._buffer.truncate()
        return text

    def _write(self, row: Iterable[object]) -> None:
        cells = [cell(v) for v in row]
        writer = self._quoting if Quoted in map(type, cells) else self._writer
        writer.writerow(cells)

    def line(self, row: Iterable[object]) -> str:
        self._write(row)
        return self._take()

    def lines(self, rows: Iterable[Iterable[object]], size: int = BATCH_CHARS) -> Iterator[str]:
        """The header alone at once (the download starts), then pieces of about `size` characters."""
        rows = iter(rows)
        for row in rows:
            yield self.line(row)
            break
        for row in rows:
            if isinstance(row, Lines):
                self._buffer.write(row)
            elif isinstance(row, Line):
                self._buffer.write(row)
                self._buffer.write("\r\n")
            else:  # _write(), inline: a call a row costs more than its check
                cells = [cell(v) for v in row]
                (self._quoting if Quoted in map(type, cells) else self._writer).writerow(cells)
            if self._buffer.tell() >= size:
                yield self._take()
        rest = self._take()
        if rest:
            yield rest
