# SELECT ... FROM performance_schema.events_statements_summary_by_digest WHERE LAST_SEEN >= <last read>.
"""Statement digests: per-interval deltas per (schema, digest), read from the rows that moved.

Only the rows whose LAST_SEEN reached the previous read's newest LAST_SEEN are read: a
row that did not move since has no delta. The previous totals of every digest live in the
source's snapshot (collectors.snapshots, one JSON text so that other sources' polls do not
decode it). Timers are picoseconds, summed as Python ints. Per digest: a digest new since
the previous read (FIRST_SEEN at or after it: created, or evicted and re-created, or
re-created after a TRUNCATE or a restart) counts its whole totals, which all happened since;
one whose FIRST_SEEN is older but is not in the snapshot only sets its baseline; one whose
counters went down without a new FIRST_SEEN is a reset of that digest only (baseline).
The top digests by time of the interval are kept, the others summed into one row
(collectors.statement_rows), so the stored rows add up to the table's totals.
"""

import json
from dataclasses import dataclass, field
from datetime import datetime, timedelta

import pymysql

from collectors import delta, setup_changes
from collectors.connection import ServerInfo
from collectors.metric import Metric
from collectors.source import Reading, Source, SourceError, SourceUnavailable, query, require_performance_schema
from collectors.statement_rows import COUNTERS, KEY_SEP, DigestRow, Interval, top_rows

NAME = "statements"
STATEMENT_TIME_LIMIT_S = 1  # the digest read gives up rather than run longer (MySQL 5.7.8+, MariaDB 10.1.2+)
SIZE_EVERY = 60  # reads between two reads of performance_schema_digests_size
FORGET_AFTER = timedelta(days=1)  # a digest not seen for this long leaves the snapshot (it would be a baseline)
TEXTS_PER_READ = 1000  # digest texts read at most per read (the rest at their next move)

# The counters, in the order of statement_rows.COUNTERS, then the levels and the two times.
COLUMNS = ("{schema}, DIGEST, COUNT_STAR, SUM_TIMER_WAIT, SUM_LOCK_TIME, SUM_ERRORS, SUM_WARNINGS,"
           " SUM_ROWS_AFFECTED, SUM_ROWS_SENT, SUM_ROWS_EXAMINED, SUM_CREATED_TMP_DISK_TABLES,"
           " SUM_NO_INDEX_USED, SUM_NO_GOOD_INDEX_USED, MAX_TIMER_WAIT, FIRST_SEEN, LAST_SEEN")
QUANTILES = ", QUANTILE_95, QUANTILE_99"  # MySQL 8.0.3+: latency quantiles since the digest's FIRST_SEEN
TABLE = "performance_schema.events_statements_summary_by_digest"
# %s is the previous read's newest LAST_SEEN: >= because LAST_SEEN has whole seconds on MySQL 5.x and MariaDB.
MOVED_SQL = "SELECT {hint}{columns} FROM " + TABLE + " WHERE LAST_SEEN >= %s"
ALL_SQL = "SELECT {hint}{columns} FROM " + TABLE
# The texts of the digests kept this interval and not yet sent to the store (once per digest).
TEXT_SQL = "SELECT {schema}, DIGEST, DIGEST_TEXT{sample} FROM " + TABLE + " WHERE DIGEST IN ({marks})"
SAMPLE = ", QUERY_SAMPLE_TEXT"  # MySQL 8.0.3+: one statement of the digest as it ran
# How full the table is: rows it may hold, and statements that found it full (status counter). SHOW, not
# SELECT @@GLOBAL...: a SELECT of no table is an application's (store.monitoring_reads), and this one ranked
# first among a sysbench run's statements on MariaDB, whose prepared statements leave no digest.
SIZE_SQL = "SHOW GLOBAL VARIABLES LIKE 'performance_schema_digests_size'"
LOST_SQL = "SHOW GLOBAL STATUS LIKE 'Performance_schema_digest_lost'"
# Asked at the first read and after a change: the consumers that fill the table and the statement instruments it counts,
# on or off, stored as gauges at every read so that a range's statements say whether they were weakened.
CONSUMERS = ("global_instrumentation", "statements_digest")
SETUP_SQL = ("SELECT c.gi, c.sd, i.timed, i.total FROM"
             " (SELECT MAX(IF(NAME = 'global_instrumentation', ENABLED, NULL)) AS gi,"
             " MAX(IF(NAME = 'statements_digest', ENABLED, NULL)) AS sd FROM performance_schema.setup_consumers) c,"
             " (SELECT SUM(ENABLED = 'YES' AND TIMED = 'YES') AS timed, COUNT(*) AS total"
             " FROM performance_schema.setup_instruments WHERE NAME LIKE 'statement/%') i")
CONSUMER_FIX = ("UPDATE performance_schema.setup_consumers SET ENABLED = 'YES'"
                " WHERE NAME IN ('global_instrumentation', 'statements_digest')")
INSTRUMENTS_FIX = ("UPDATE performance_schema.setup_instruments SET ENABLED = 'YES', TIMED = 'YES'"
                   " WHERE NAME LIKE 'statement/%'")
# Every read asks whether the setup moved (collectors.setup_changes' sums as read in this poll): a consumer
# turned off between two reads must be said by the next one. The sums it reads serve the other sources' checks.
SETUP_EVERY_S = 0
# Per connection: the setup as last read.
SETUPS: setup_changes.KeptSetup[dict[str, int] | None] = setup_changes.KeptSetup()
CONSUMER_OFF = "statements.consumer_off:"  # + a name of CONSUMERS: 1 when it was off at the read
INSTRUMENTS_OFF, INSTRUMENTS_ALL = "statements.instruments_off", "statements.instruments"
NO_SUCH_TABLE = 1146
INTERRUPTED = (1969, 3024)  # MariaDB max_statement_time, MySQL MAX_EXECUTION_TIME exceeded


def has_quantiles(info: ServerInfo) -> bool:
    return info.flavor == "mysql" and info.version_tuple >= (8, 0, 3)


def schema_column(info: ServerInfo) -> str:
    """MySQL 5.6.5-5.6.8 has no SCHEMA_NAME column: its digests are grouped by DIGEST alone, a row without schema."""
    if info.flavor == "mysql" and info.version_tuple < (5, 6, 9):
        return "NULL AS SCHEMA_NAME"
    return "SCHEMA_NAME"


def time_limit_hint(info: ServerInfo) -> tuple[str, str]:
    """(prefix before SELECT, hint after it) bounding the read's time where the server can."""
    if info.flavor == "mariadb" and info.version_tuple >= (10, 1, 2):
        return f"SET STATEMENT max_statement_time = {STATEMENT_TIME_LIMIT_S} FOR ", ""
    if info.flavor == "mysql" and info.version_tuple >= (5, 7, 8):
        return "", f"/*+ MAX_EXECUTION_TIME({STATEMENT_TIME_LIMIT_S * 1000}) */ "
    return "", ""


def digest_sql(info: ServerInfo, moved: bool) -> str:
    prefix, hint = time_limit_hint(info)
    columns = COLUMNS.format(schema=schema_column(info)) + (QUANTILES if has_quantiles(info) else "")
    return prefix + (MOVED_SQL if moved else ALL_SQL).format(hint=hint, columns=columns)


def collect(conn: pymysql.Connection, info: ServerInfo, previous: delta.Snapshot | None = None) -> Reading:
    require_performance_schema(info, NAME)
    state = State.of(previous)
    return reading_of(state, read(conn, info, state))


def read(conn: pymysql.Connection, info: ServerInfo, state: "State") -> "RawRead":
    """What the server says this time: the rows that moved, the texts not stored yet, the overflow figures asked."""
    try:
        raw = query(conn, digest_sql(info, bool(state.watermark)), (state.watermark,) if state.watermark else None)
    except pymysql.MySQLError as exc:
        if exc.args and exc.args[0] == NO_SUCH_TABLE:
            raise SourceUnavailable(f"{TABLE} does not exist on {info.label} (MySQL 5.6.5+, MariaDB 10.0+)") from None
        if exc.args and exc.args[0] in INTERRUPTED:
            raise SourceError(cut_short(info)) from None
        raise
    setup = read_setup(conn, info)
    if not raw and not state.digests:  # nothing to store: the source is only off
        check_consumer(setup)
    rows = [parse(row) for row in raw]
    found = RawRead(rows, read_texts(conn, info, texts_wanted(rows, state)), setup=setup)
    read_overflow(conn, state, found)
    return found


def cut_short(info: ServerInfo) -> str:
    """The digest read stopped by its own time limit: what happened, what it costs, what is not lost.

    A failed read leaves the source's snapshot as it was, so the next one reads from the same LAST_SEEN."""
    limit = "max_statement_time" if info.flavor == "mariadb" else "MAX_EXECUTION_TIME"
    return (f"the digest read was stopped after {STATEMENT_TIME_LIMIT_S} s by the monitor's own time limit on it"
            f" ({limit}), which keeps it from loading {info.label}: nothing is lost, the next read counts this"
            " interval's statements with its own; if every read is stopped, no statements are stored: the digest"
            " table (up to performance_schema_digests_size rows) is too slow to read under this load")


def reading_of(state: "State", raw: "RawRead") -> Reading:
    """The read applied to the previous state: the interval's kept deltas, and the state the next read starts from.

    The poll and the load of a collection file (compute) both come here, so a file's raw reads give the same rows.
    """
    interval = state.advance(raw.rows)
    kept = top_rows(interval.rows)
    state.note_texts(raw.texts)
    size, lost = state.apply_overflow(raw)
    values = {"statements.digest_lost": lost, "statements.digests_size": size, "statements.digests_read": len(raw.rows),
              **(raw.setup or {})}
    extra = {"interval": Interval(kept, interval.resets, raw.texts), "state": state.dumps(), "raw": raw}
    # A consumer turned off after the source ran: the digests it read stay and stop moving. Its reading (the
    # consumer's gauge, what moved before the switch) is kept and the source reported off, which alerts.
    return Reading({k: v for k, v in values.items() if v is not None},
                   frozenset({"statements.digest_lost"}) if lost is not None else frozenset(),
                   note=interval.note(), extra=extra, off=consumer_problem(raw.setup))


def read_setup(conn: pymysql.Connection, info: ServerInfo) -> dict[str, int] | None:
    """The consumers (1 when off) and statement instruments (off, all) as gauges; None where they cannot be read.

    Read again only when collectors.setup_changes' sums, as read in this poll, say they may have changed."""
    return SETUPS.get(conn, info, SETUP_EVERY_S, lambda: setup_now(conn), this_poll=True)


def setup_now(conn: pymysql.Connection) -> dict[str, int] | None:
    try:
        found = query(conn, SETUP_SQL)
    except pymysql.MySQLError:
        return None
    if not found:
        return None
    gi, sd, timed, total = found[0]
    off = {CONSUMER_OFF + name: int(str(enabled).upper() != "YES")
           for name, enabled in zip(CONSUMERS, (gi, sd), strict=True) if enabled is not None}
    return off | {INSTRUMENTS_OFF: int(total or 0) - int(timed or 0), INSTRUMENTS_ALL: int(total or 0)}


def check_consumer(setup: dict[str, int] | None) -> None:
    problem = consumer_problem(setup, "stays empty")
    if problem:
        raise SourceUnavailable(problem)


def consumer_problem(setup: dict[str, int] | None, table: str = "stops counting") -> str:
    """The consumers off as the setup read (every read: read_setup) says, and the statement that turns them on;
    "" when all are on or the setup could not be read."""
    off = [name for name in CONSUMERS if (setup or {}).get(CONSUMER_OFF + name)]
    if not off:
        return ""
    return (f"the performance_schema consumer(s) {', '.join(off)} are off, so the digest table {table};"
            f" run: {CONSUMER_FIX} (and set them in my.cnf to keep them after a restart:"
            " performance-schema-consumer-statements-digest=ON)")


def parse(row: tuple) -> DigestRow:
    schema, digest = row[0] or "", row[1] or ""
    counts = tuple(int(v or 0) for v in row[2:2 + len(COUNTERS)])
    rest = row[2 + len(COUNTERS):]
    max_ps, first, last = int(rest[0] or 0), seen(rest[1]), seen(rest[2])
    p95 = int(rest[3]) if len(rest) > 3 and rest[3] is not None else None
    p99 = int(rest[4]) if len(rest) > 4 and rest[4] is not None else None
    return DigestRow(schema, digest, counts, max_ps, first, last, p95, p99)


def seen(value) -> str:
    """FIRST_SEEN / LAST_SEEN as text that sorts in time order ('YYYY-MM-DD HH:MM:SS[.ffffff]')."""
    if isinstance(value, datetime):
        return value.isoformat(sep=" ")
    return value.decode() if isinstance(value, bytes) else str(value)


def texts_wanted(rows: list[DigestRow], state: "State") -> list[DigestRow]:
    """The moved digests whose text is not stored yet (not only the kept ones: the top N's boundary moves
    from read to read, and each text is then read once in a digest's life); none on the first read."""
    if state.first:
        return []
    return [r for r in rows if r.digest and not state.has_text(r.key)][:TEXTS_PER_READ]


def read_texts(conn: pymysql.Connection, info: ServerInfo, rows: list[DigestRow]) -> dict[str, tuple[str, str]]:
    """key -> (digest text, sample text or '') for the kept digests whose text is not stored yet."""
    if not rows:
        return {}
    sql = TEXT_SQL.format(schema=schema_column(info), sample=SAMPLE if has_quantiles(info) else "",
                          marks=", ".join(["%s"] * len(rows)))
    wanted = {r.key for r in rows}
    found = {}
    for row in query(conn, sql, [r.digest for r in rows]):
        key = DigestRow.make_key(row[0] or "", row[1] or "")
        if key in wanted:
            found[key] = (text(row[2]), text(row[3]) if len(row) > 3 else "")
    return found


def text(value) -> str:
    if value is None:
        return ""
    return value.decode(errors="replace") if isinstance(value, bytes) else str(value)


def read_overflow(conn: pymysql.Connection, state: "State", found: "RawRead") -> None:
    """performance_schema_digests_size and Performance_schema_digest_lost, each asked only when it may have changed.

    The size changes only with a restart: asked once an hour. digest_lost counts only when the table is
    full, and every such statement also moves the NULL-digest row: asked when that row moved (else the
    last value stands, a delta of 0). One statement a read in the steady state instead of three.
    """
    if state.size_age is None or state.size_age >= SIZE_EVERY:
        found.asked.append("size")
        try:
            size = query(conn, SIZE_SQL)
            found.size = int(size[0][1]) if size else None
        except pymysql.MySQLError:
            found.size = None
    if state.lost is None or any(not r.digest for r in found.rows):
        found.asked.append("lost")
        lost = query(conn, LOST_SQL)
        found.lost = int(lost[0][1]) if lost else None


@dataclass
class RawRead:
    """One read as the server answered it: what a collection file keeps of the source (as_json, of_json)."""

    rows: list[DigestRow]
    texts: dict[str, tuple[str, str]]  # key -> (digest text, sample text), for digests not stored yet
    asked: list[str] = field(default_factory=list)  # the overflow figures asked this time: "size", "lost"
    size: int | None = None
    lost: int | None = None
    setup: dict[str, int] | None = None  # read_setup(): the consumers and statement instruments off

    def as_json(self) -> dict:
        rows = [[r.schema, r.digest, r.max_ps, r.first_seen, r.last_seen, r.p95_ps, r.p99_ps, *r.counts]
                for r in self.rows]
        texts = [[*split_key(key), text, sample] for key, (text, sample) in self.texts.items()]
        return {"rows": rows, "texts": texts, "asked": self.asked, "size": self.size, "lost": self.lost,
                "setup": self.setup}

    @classmethod
    def of_json(cls, data: dict) -> "RawRead":
        """The read a file holds; TypeError or ValueError where it is not one."""
        rows = [json_row(row) for row in data["rows"]]
        if not all(len(t) == 4 for t in data["texts"]) or not set(data["asked"]) <= {"size", "lost"}:
            raise ValueError("a digest text is not [schema, digest, text, sample], or an unknown figure was asked")
        texts = {DigestRow.make_key(schema, digest): (text, sample)
                 for schema, digest, text, sample in (texts_of(t) for t in data["texts"])}
        return cls(rows, texts, list(data["asked"]), optional_int(data.get("size")), optional_int(data.get("lost")),
                   setup_of(data.get("setup")))


def json_row(row: list) -> DigestRow:
    if len(row) != 7 + len(COUNTERS):
        raise ValueError(f"a digest row has {len(row)} fields, not {7 + len(COUNTERS)}")
    schema, digest, first, last = texts_of([row[0], row[1], row[3], row[4]])
    counts = tuple(whole(v) for v in row[7:])
    return DigestRow(schema, digest, counts, whole(row[2]), first, last, optional_int(row[5]), optional_int(row[6]))


def setup_of(data) -> dict[str, int] | None:
    """A file's setup gauges (None in files written before they were read)."""
    if data is None:
        return None
    known = {CONSUMER_OFF + name for name in CONSUMERS} | {INSTRUMENTS_OFF, INSTRUMENTS_ALL}
    if not isinstance(data, dict) or not set(data) <= known:
        raise ValueError("the setup of a digest read names an unknown gauge")
    return {k: whole(v) for k, v in data.items()}


def texts_of(values: list) -> list[str]:
    if not all(isinstance(v, str) for v in values):
        raise TypeError("a digest's schema, digest, text or times are not all text")
    return values


def whole(value) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ValueError(f"{value!r} is not a count or a time of the digest table")
    return value


def optional_int(value) -> int | None:
    return None if value is None else whole(value)


def split_key(key: str) -> tuple[str, str]:
    schema, _, digest = key.partition(KEY_SEP)
    return schema, digest


class State:
    """The previous read's newest LAST_SEEN and each digest's totals then: [first, last, text stored, *counters].

    The watermark is None before the first read, '' after a read that found the table empty.
    """

    def __init__(self, watermark: str | None, digests: dict[str, list], size: int | None = None,
                 size_age: int | None = None, lost: int | None = None):
        self.watermark, self.digests = watermark, digests
        self.first = watermark is None  # this read only takes the baseline
        self.size, self.size_age, self.lost = size, size_age, lost  # see overflow()

    @classmethod
    def of(cls, previous: delta.Snapshot | None) -> "State":
        if previous is None or "state" not in previous.values:
            return cls(None, {})
        data = json.loads(str(previous.values["state"]))  # kept as JSON text beside the numbers
        return cls(data["w"], data["d"], data.get("s"), data.get("sa"), data.get("l"))

    def dumps(self) -> str:
        return json.dumps({"w": self.watermark, "d": self.digests, "s": self.size, "sa": self.size_age,
                           "l": self.lost}, separators=(",", ":"))

    def apply_overflow(self, raw: RawRead) -> tuple[int | None, int | None]:
        """(size, lost) after this read: the figures asked replace the known ones, the others stand."""
        if "size" in raw.asked:
            self.size, self.size_age = raw.size, 0
        self.size_age = (self.size_age or 0) + 1
        if "lost" in raw.asked:
            self.lost = raw.lost
        return self.size, self.lost

    def has_text(self, key: str) -> bool:
        return bool(self.digests.get(key, [0, 0, 0])[2])

    def note_texts(self, texts: dict) -> None:
        for key in texts:
            self.digests[key][2] = 1

    def advance(self, rows: list[DigestRow]) -> "Deltas":
        """This read's deltas against the stored totals; the totals become this read's."""
        out = Deltas([], [], self.watermark is None)
        for row in rows:
            old = self.digests.get(row.key)
            change = row.delta_since(old, self.watermark)
            if change is None and old is not None:
                out.resets.append(row.label)
            elif change is not None and any(change.counts):
                out.rows.append(change)
            self.digests[row.key] = [row.first_seen, row.last_seen, old[2] if old else 0, *row.counts]
        # Read once now: '' when the table was empty, so that every row found later is new.
        self.watermark = max([r.last_seen for r in rows] + [self.watermark or ""])
        self.forget_old()
        return out

    def forget_old(self) -> None:
        if not self.watermark:
            return
        cut = (datetime.fromisoformat(self.watermark) - FORGET_AFTER).isoformat(sep=" ")
        for key in [k for k, v in self.digests.items() if v[1] < cut]:
            del self.digests[key]


class Deltas:
    def __init__(self, rows: list[DigestRow], resets: list[str], first: bool):
        self.rows, self.resets, self.first = rows, resets, first

    def note(self) -> str:
        if self.first:
            return "first read: every digest's totals kept as its baseline"
        if self.resets:
            shown = ", ".join(self.resets[:5]) + (f" and {len(self.resets) - 5} more" if len(self.resets) > 5 else "")
            return f"digest counters went down (reset of those digests), no delta this interval for: {shown}"
        return ""


def compute(prev: delta.Snapshot | None, reading: Reading, ts: float, boot: float | None
            ) -> tuple[delta.Delta, delta.Snapshot]:
    """The digest state is the snapshot; the table's overflow figures go through the delta engine as usual.

    A reading from a collection file holds only the raw read: it is applied to the previous state here,
    as the poll's collect() applied it (the reading then carries the interval as a polled one does).
    """
    if "interval" not in reading.extra:
        made = reading_of(State.of(prev), reading.extra["raw"])
        reading.values, reading.counters, reading.note = made.values, made.counters, made.note
        reading.extra.update(made.extra)
    plain = Reading(reading.values, reading.counters)
    previous = None if prev is None else delta.Snapshot(prev.ts, prev.boot, {
        k: v for k, v in prev.values.items() if k != "state"})
    change, snapshot = delta.compute(previous, plain, ts, boot)
    snapshot.values["state"] = reading.extra["state"]
    interval = reading.extra["interval"]
    interval.seconds = None if prev is None else ts - prev.ts
    interval.extra["at"] = ts
    return change, snapshot


METRICS = (
    Metric.counter("statements.digest_lost", "statements", "Performance_schema_digest_lost: digest table full"),
    Metric.gauge("statements.digests_size", "rows", "performance_schema_digests_size: the digest table's capacity"),
    Metric.gauge("statements.digests_read", "rows", "digest rows that moved since the previous read"),
    Metric.gauge(CONSUMER_OFF, "1 = off", "a consumer the digest table needs (global_instrumentation, "
                 "statements_digest) off (1) or on (0) at the read"),
    Metric.gauge(INSTRUMENTS_OFF, "instruments", "statement/% instruments not both enabled and timed, at the read"),
    Metric.gauge(INSTRUMENTS_ALL, "instruments", "statement/% instruments, on or off"),
)


SOURCE = Source(
    name=NAME,
    help="performance_schema statement digests: per-interval deltas per (schema, digest), top N by time plus"
         " the rest (store_statement); statements.digest_lost, statements.digests_size, statements.digests_read,"
         " statements.consumer_off:<consumer>, statements.instruments_off, statements.instruments",
    flavors=frozenset(("mysql", "mariadb")),
    min_version={"mysql": (5, 6, 5), "mariadb": (10, 0, 0)},
    interval=60,  # where the server is not known; else its own (Server.statements_interval, 60 s by default)
    interval_of=lambda target: target.statements_interval,
    collect=collect,
    metrics=METRICS,
    since=True,
    compute=compute,
    setup_every_read=True,
)
