"""Statement digests' compact rows: exact sums past 64 bits, one row per read, levels as read."""

from datetime import UTC, datetime, timedelta

import pytest

from store import statement_reads
from store.statements import COUNTERS, StatementRow, write

pytestmark = pytest.mark.django_db
T0 = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)
BIG = 4 * 10**18  # picoseconds in one read's delta: ten of them pass 2**63


def row(k: int, digest: str, execs: int, time_ps: int, p95: int | None = None) -> StatementRow:
    counts = tuple({"execs": execs, "time_ps": time_ps, "rows_sent": k}.get(name, 0) for name in COUNTERS)
    return StatementRow(1, T0 + timedelta(seconds=60 * k), 60_000, "s", digest, counts, 1000 * k, p95, p95)


def test_sums_are_exact_past_64_bits_and_levels_are_the_newest():
    write([row(k, "big", 3, BIG + k, p95=None if k == 10 else 500 + k) for k in range(1, 11)]
          + [row(k, "small", k, 7) for k in range(1, 11)], {("s", "big"): ("SELECT ?", "")})
    found = {t.digest: t for t in statement_reads.totals(1, T0, T0 + timedelta(hours=1))}
    big = found["big"]
    assert big.sums["time_ps"] == sum(BIG + k for k in range(1, 11)) > 2**63
    assert big.sums["execs"] == 30 and big.sums["rows_sent"] == 55 and big.intervals == 10
    assert big.max_ps == 10_000 and big.p95_ps == 509  # the newest quantile read (the last read had none)
    assert big.text == "SELECT ?" and found["small"].sums["execs"] == 55


def test_a_read_written_twice_is_stored_once_and_a_range_is_start_exclusive():
    rows = [row(k, "d", 2, 10) for k in range(1, 4)]
    write(rows, {})
    write(rows, {})
    assert statement_reads.totals(1, T0, T0 + timedelta(hours=1))[0].sums["execs"] == 6
    after_first = statement_reads.totals(1, T0 + timedelta(seconds=60), T0 + timedelta(hours=1))
    assert after_first[0].sums["execs"] == 4  # the read ending at the start is not in (start, end]
    line = statement_reads.lines(1, [after_first[0].digest_id], T0, T0 + timedelta(hours=1))
    assert [r[2] for r in line[after_first[0].digest_id]] == [2, 2, 2]
