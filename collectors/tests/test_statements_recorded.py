"""Statement digests from recorded MySQL 5.6/5.7/8.0 rows: deltas per digest, resets, texts, the rest row."""

import json

import pymysql
from django.test import override_settings

from collectors.collect_format import reading_dict, reading_of
from collectors.delta import RawReading
from collectors.sources import statements
from collectors.statement_rows import DigestRow, top_rows
from collectors.tests.recorded import RecordedConnection, digest_answers, mysql

T0 = 1_800_000_000.0
VERSIONS = {"5.7": "5.7.44", "8.0": "8.0.36"}  # of the recorded files


def two_reads(version: str, lost=(0, 0)):
    info = mysql(VERSIONS[version])
    first = statements.collect(RecordedConnection(digest_answers(version, 1, lost[0])), info, None)
    _, snapshot = statements.compute(None, first, T0, None)
    conn = RecordedConnection(digest_answers(version, 2, lost[1]))
    second = statements.collect(conn, info, snapshot)
    change, _ = statements.compute(snapshot, second, T0 + 60, None)
    return first, second, change, conn


def by_digest(reading) -> dict[str, DigestRow]:
    return {row.digest[:4]: row for row in reading.extra["interval"].rows}


def test_the_first_read_is_a_baseline_and_stores_nothing():
    first = statements.collect(RecordedConnection(digest_answers("5.7", 1)), mysql("5.7.44"), None)
    assert first.extra["interval"].rows == [] and "baseline" in first.note


def test_mysql_57_deltas_of_moved_rows_and_whole_totals_of_a_digest_new_since():
    _, second, change, conn = two_reads("5.7")
    rows = by_digest(second)
    a, c = rows["3c6e"], rows["0b1c"]
    # A: 1600 - 1000 executions, (400 - 250) x 10^9 ps; its counters in the order of COUNTERS.
    assert a.counts == (600, 150_000_000_000, 24_000_000_000, 0, 0, 0, 600, 600, 0, 0, 0)
    # C: FIRST_SEEN 03:10:30 is after the previous read's newest LAST_SEEN (03:10:00): all its totals.
    assert c.counts == (30, 60_000_000_000, 1_000_000_000, 0, 0, 0, 30, 300_000, 30, 30, 0)
    assert "9f2a" not in rows  # B did not move: not read, no row
    assert [r.digest[:4] for r in second.extra["interval"].rows] == ["3c6e", "0b1c"]  # by time
    assert a.p95_ps is None and c.max_ps == 3_000_000_000
    moved_sql = next(sql for sql in conn.executed if "COUNT_STAR" in sql)
    assert "LAST_SEEN >= %s" in moved_sql and "MAX_EXECUTION_TIME(1000)" in moved_sql
    assert "QUANTILE" not in moved_sql
    texts = second.extra["interval"].texts
    assert {key.split("\x1f")[1][:4] for key in texts} == {"3c6e", "0b1c"}
    assert texts[DigestRow.make_key("sbtest", a.digest)][0] == "SELECT `c` FROM `sbtest1` WHERE `id` = ?"
    assert change.interval == 60


def test_mysql_80_quantiles_and_sample_text_and_a_digest_reset_alone():
    _, second, _, conn = two_reads("8.0")
    rows = by_digest(second)
    a = rows["5d0e"]
    assert a.counts[:2] == (600, 90_000_000_000) and a.counts[3] == 1  # one error this interval
    assert (a.p95_ps, a.p99_ps) == (229_086_765, 316_227_766)  # as read: since FIRST_SEEN
    assert "a1b2" not in rows  # B went down with the same FIRST_SEEN: that digest's baseline only
    assert "went down" in second.note and "a1b2" in second.note
    moved_sql = next(sql for sql in conn.executed if "COUNT_STAR" in sql)
    assert "QUANTILE_95, QUANTILE_99" in moved_sql
    assert "QUERY_SAMPLE_TEXT" in next(sql for sql in conn.executed if "DIGEST IN (" in sql)
    text, sample = second.extra["interval"].texts[DigestRow.make_key("sbtest", a.digest)]
    assert sample == "SELECT c FROM sbtest1 WHERE id=4213"


def test_the_next_read_after_a_reset_counts_from_the_new_baseline():
    info = mysql("8.0.36")
    snapshot = None
    for read in (1, 2):
        reading = statements.collect(RecordedConnection(digest_answers("8.0", read)), info, snapshot)
        _, snapshot = statements.compute(snapshot, reading, T0 + read, None)
    answers = digest_answers("8.0", 2)
    b = next(row for row in answers["COUNT_STAR"] if row[1].startswith("a1b2"))
    answers["COUNT_STAR"][1] = (*b[:2], "25", *b[3:])  # 15 more executions of B
    third = statements.collect(RecordedConnection(answers), info, snapshot)
    assert by_digest(third)["a1b2"].counts[0] == 15


def test_digest_lost_is_read_again_only_when_the_null_digest_row_moved():
    _, _, change, conn = two_reads("5.7", lost=(100, 130))
    # Read 2 has no NULL-digest row: the table did not overflow since, the counter is not asked again.
    assert change.values["statements.digest_lost"] == 0 and change.values["statements.digests_size"] == 10000
    assert not any("digest_lost" in sql or "digests_size" in sql for sql in conn.executed)
    info = mysql("5.7.44")
    _, snapshot = statements.compute(None, statements.collect(
        RecordedConnection(digest_answers("5.7", 1, 100)), info, None), T0, None)
    answers = digest_answers("5.7", 2, 130)
    answers["COUNT_STAR"].append((None, None, "70", "9000000000", "0", "0", "0", "0", "70", "7000", "3", "70", "0",
                                  "400000000", "2026-11-26 03:05:00", "2026-11-26 03:10:40"))
    conn = RecordedConnection(answers)
    reading = statements.collect(conn, info, snapshot)
    change, _ = statements.compute(snapshot, reading, T0 + 60, None)
    assert change.values["statements.digest_lost"] == 30  # 100 -> 130 while the NULL row counted 30 more
    null_row = next(r for r in reading.extra["interval"].rows if not r.digest)
    assert null_row.counts[0] == 30


def test_mysql_56_has_no_time_limit_hint():
    conn = RecordedConnection(digest_answers("5.7", 1))
    assert statements.collect(conn, mysql("5.6.51"), None).extra["interval"].rows == []
    assert conn.executed[0].startswith("SELECT SCHEMA_NAME") and "MAX_EXECUTION_TIME" not in conn.executed[0]


def test_the_kept_digests_and_the_rest_add_up_to_the_table():
    rows = [DigestRow("s", f"d{i}", (i, i * 1000, i, 0, 0, 0, i, i * 10, 0, i % 2, 0), i * 7) for i in range(1, 11)]
    with override_settings(STATEMENTS_TOP_N=3):
        kept = top_rows(rows)
    assert [r.digest for r in kept] == ["d10", "d9", "d8", "*"]
    for i in range(len(rows[0].counts)):
        assert sum(r.counts[i] for r in kept) == sum(r.counts[i] for r in rows)
    assert kept[-1].counts[0] == sum(range(1, 8)) and kept[-1].max_ps == 49


def test_the_null_digest_row_is_kept_below_the_top_n():
    """A full digest table's NULL-digest row with less time than the top N was summed into the rest: the
    Statements tab then lost the sentence naming the executions counted without a digest."""
    rows = [DigestRow("s", f"d{i}", (i, i * 1000) + (0,) * 9, 1) for i in range(1, 11)]
    rows.append(DigestRow("", "", (42, 500) + (0,) * 9, 1))  # 42 executions, the least time of all
    with override_settings(STATEMENTS_TOP_N=3):
        kept = top_rows(rows)
    assert [r.digest for r in kept] == ["d10", "d9", "d8", "", "*"]
    assert kept[3].counts[:2] == (42, 500)
    assert kept[4].counts[:2] == (1 + 2 + 3 + 4 + 5 + 6 + 7, 28_000)  # d1..d7 only


def test_a_digest_missing_from_the_snapshot_with_an_older_first_seen_is_only_a_baseline():
    row = DigestRow("s", "d", (5,) + (0,) * 10, 1, "2026-11-26 03:00:00", "2026-11-26 03:10:05")
    assert row.delta_since(None, "2026-11-26 03:10:00") is None
    assert row.delta_since(None, "2026-11-26 02:59:59").counts[0] == 5  # created after the previous read
    assert row.delta_since(None, None) is None  # the first read


def test_a_collection_files_raw_reads_replay_to_the_rows_the_poll_stored():
    """What `collect` writes of each read, through JSON and back, gives the load the poll's rows and state."""
    info = mysql("8.0.36")
    polled_snapshot = loaded_snapshot = None
    for read, lost in ((1, 100), (2, 130)):
        answers = digest_answers("8.0", read, lost)
        if read == 2:  # the NULL-digest row moved: digest_lost is asked again
            answers["COUNT_STAR"].append((None, None, "70", "9000000000", "0", "0", "0", "0", "70", "7000", "3",
                                          "70", "0", "400000000", "2026-11-26 03:05:00", "2026-11-26 03:10:40",
                                          None, None))
        polled = statements.collect(RecordedConnection(answers), info, polled_snapshot)
        at = T0 + 60 * read
        polled_change, polled_snapshot = statements.compute(polled_snapshot, polled, at, None)
        entry = json.loads(json.dumps(reading_dict(statements.NAME, RawReading(polled, at, None), polled_snapshot)))
        assert set(entry["extra"]) == {"raw"}  # only what the server said: the rest is computed at load
        loaded = reading_of(entry).reading
        loaded_change, loaded_snapshot = statements.compute(loaded_snapshot, loaded, at, None)
        assert loaded.extra["interval"].rows == polled.extra["interval"].rows
        assert loaded.extra["interval"].texts == polled.extra["interval"].texts
        assert (loaded_change.values, loaded.note) == (polled_change.values, polled.note)
        assert loaded_snapshot.values == polled_snapshot.values  # the digest state the next read starts from
    assert polled.extra["interval"].rows and loaded_change.values["statements.digest_lost"] == 30


def test_mysql_before_569_has_no_schema_column_and_its_digests_are_read_without_one():
    """MySQL 5.6.5-5.6.8 answers SCHEMA_NAME with error 1054: the read asks NULL in its place, as the table has no
    schema to group by, and the deltas are the digests' own."""
    no_column = pymysql.err.OperationalError(1054, "Unknown column 'SCHEMA_NAME' in 'field list'")
    info, snapshot, conn = mysql("5.6.8"), None, None
    for read in (1, 2):
        conn = RecordedConnection({"SELECT SCHEMA_NAME": no_column, **digest_answers("5.6", read)})
        reading = statements.collect(conn, info, snapshot)
        _, snapshot = statements.compute(snapshot, reading, T0 + 60 * read, None)
    rows = reading.extra["interval"].rows
    assert [r.digest[:4] for r in rows] == ["7d2e"]  # the one that moved
    # 1600 - 1000 executions, (400 - 250) x 10^9 ps of statement time, (64 - 40) x 10^9 of lock time.
    assert rows[0].counts[:3] == (600, 150_000_000_000, 24_000_000_000)
    assert reading.extra["interval"].texts[rows[0].key][0] == "SELECT `c` FROM `sbtest1` WHERE `id` = ?"
    assert all("NULL AS SCHEMA_NAME" in sql for sql in conn.executed if "DIGEST" in sql)
