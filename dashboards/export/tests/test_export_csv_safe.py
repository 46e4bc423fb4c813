"""Spreadsheet-safe cells: text that would run as a formula is neutralised, numbers stay numbers."""

import csv
import io
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
