"""Spreadsheet-safe cells: text that would run as a formula is neutralised, numbers stay numbers."""

import csv
import io
import re
from datetime import UTC, datetime, timedelta, timezone

import pytest

from dashboards.export.csv_safe import CsvLines, cell, iso_utc, safe_text

ODD = [
    "=HYPERLINK(\"http://x\",\"click\")", "+1+2", "-2+3", "@SUM(A1)", "\tindent", "\rreturn",
    "a,b", 'say "hi"', "two\nlines", "crème brûlée ☃", "", "plain",
]


@pytest.mark.parametrize("text", ["=1+1", "+1", "-1", "@A1", "\t1", "\r1"])
def test_it_neutralises_formula_starts(text):
    assert safe_text(text) == "'" + text


def test_it_leaves_numbers_as_numbers():
    assert cell(-3.5) == -3.5
    assert cell(-7) == -7
    assert cell(10**30) == 10**30  # picosecond sums are Python ints
    assert cell(5719.0) == 5719 and isinstance(cell(5719.0), int)
    assert cell(None) == ""
    assert cell(float("nan")) == ""


def test_it_writes_iso_utc_with_z():
    plus2 = timezone(timedelta(hours=2))
    assert iso_utc(datetime(2026, 1, 2, 5, 0, 0, tzinfo=plus2)) == "2026-01-02T03:00:00Z"
    assert iso_utc(datetime(2026, 1, 2, 3, 0, 0, 250000, tzinfo=UTC)) == "2026-01-02T03:00:00.250000Z"


def test_it_round_trips_odd_text_through_a_csv_reader():
    lines = CsvLines()
    text = "".join(lines.line([t, -1.25, 3]) for t in ODD)
    back = list(csv.reader(io.StringIO(text, newline="")))
    assert len(back) == len(ODD)
    for original, (got, negative, three) in zip(ODD, back, strict=True):
        assert got == safe_text(original)
        if original.startswith(("=", "+", "-", "@", "\t", "\r")):
            assert got == "'" + original
        else:
            assert got == original
        assert float(negative) == -1.25 and negative == "-1.25"  # not quoted, not prefixed
        assert three == "3"


# Excel where the list separator is ';' splits a line there and evaluates a cell that then begins with =.
HOSTILE = "a;=cmd|' /C calc'!A0"


def semicolon_cells(text: str) -> list[str]:
    """The cells a semicolon-locale spreadsheet (or a tab-separated paste) would see, quoting aside: the raw
    line split at each ';' and tab."""
    return [part for line in text.splitlines() for part in re.split("[;\t]", line)]


@pytest.mark.parametrize("text", [HOSTILE, ";+1", "x;-2", "\t=1", "x\t@A1", "a; =1"])
def test_it_neutralises_a_formula_after_a_semicolon_or_a_tab(text):
    lines = CsvLines()
    written = lines.line(["first", text, -1.25, None]) + lines.line([text, 3])
    assert not [c for c in semicolon_cells(written) if c.startswith(("=", "+", "-", "@"))]
    back = list(csv.reader(io.StringIO(written, newline="")))
    assert back[0][0] == "first" and back[1][1] == "3" and back[0][2:] == ["-1.25", ""]
    assert back[0][1] == back[1][0] and back[0][1].replace("'", "") == text.replace("'", "")  # one cell each


def test_it_quotes_a_cell_holding_a_semicolon_and_keeps_numbers_bytes():
    lines = CsvLines()
    assert lines.line([HOSTILE, -1.25, 5719.0, 10**30]) == "\"a;'=cmd|' /C calc'!A0\",-1.25,5719,1" + "0" * 30 + "\r\n"
    assert lines.line(["a;b"]) == '"a;b"\r\n'  # one cell read by Excel in either locale
    assert lines.line(["ab", -1.25]) == "ab,-1.25\r\n"  # others as before
