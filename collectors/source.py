"""What a source is and what it returns: raw readings, before the delta engine.

Two kinds of source: "mysql" ones run statements on the server's pooled connection
(collect(conn, info)); "http" ones read an agent beside it, such as node_exporter
(collect(answer, info) with the fetched collectors.http_fetch.Answer). The poll runs
each kind through its own runner (collectors.poll.RUNNERS); the delta engine, the store
and the health accounting are the same for both.
"""

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any

import orjson
import pymysql

from collectors.connection import ServerInfo
from collectors.metric import Metric
from collectors.monitor_enable import pfs_on_fix
from collectors.pool import Target

FIELD_SEP, ROW_SEP = "\t", "\n"  # between the columns and the rows of a joined_rows() text


class SourceUnavailable(Exception):
    """The source cannot run on this server (performance_schema OFF, version, privilege): not a failure to retry."""


class SourceError(Exception):
    """The source answered, but not with what it should (HTML, no expected series): the message says what to fix."""


@dataclass
class Reading:
    """Raw values as read: counters are the server's running totals, not deltas yet."""

    values: Mapping[str, int | float]
    counters: frozenset[str] = frozenset()
    note: str = ""  # said to the user beside the figures (fallbacks, disabled counters)
    # A missing counter was zero at the previous read (e.g. rows filtered by COUNT_STAR > 0).
    absent_is_zero: bool = False
    # Gauges whose decrease means the counters were reset (Uptime, Uptime_since_flush_status).
    reset_markers: tuple[str, ...] = ()
    # The counters are zeroed together (TRUNCATE of a summary table): one decrease resets them all.
    # Otherwise a decrease drops that one counter's delta (FLUSH of one counter, a level misread).
    reset_together: bool = False
    # Name prefixes of counters that go down alone even where reset_together: a sum over instances the server
    # forgets (a dropped table's waits leave wait/io/table/sql/handler), so their decrease drops only their delta.
    resets_alone: tuple[str, ...] = ()
    # name -> counters in order of preference: its delta is that of the first one with a delta
    # (tps: the transaction summary where it can be read, else the explicit COMMIT/ROLLBACK count).
    aliases: dict[str, tuple[str, ...]] = field(default_factory=dict)
    stored_on_change: bool = False  # variables: only values that changed are stored
    boot: float | None = None  # epoch second the counters started, when the source says (node_boot_time_seconds)
    # Gauges computed from this interval's counter deltas (percent of CPU time, disk await), and the
    # counters that only feed them: those are kept in the snapshot but not stored.
    derive: Callable[[dict[str, int | float], float], dict[str, float]] | None = None
    unstored: frozenset[str] = frozenset()
    extra: dict = field(default_factory=dict)
    # Nothing of this kind on the server (no replication channel): the source may wait its quiet_interval.
    quiet: bool = False
    # What the server switched off since the source ran, which its figures miss from now on (a consumer): the
    # reading is stored and the source reported off with this, as a SourceUnavailable would be ("" when nothing).
    off: str = ""


@dataclass(frozen=True)
class Source:
    """One data source: each module under collectors/sources declares one as SOURCE."""

    name: str
    help: str  # one line for `poll --help`: what it reads and the metric names it stores
    # "mysql": collect(conn, info); "http": collect(answer, info), info None until the server was reached
    collect: Callable[..., Reading]
    metrics: tuple[Metric, ...] = ()  # what it stores (docs/metrics.md lists each)
    kind: str = "mysql"
    # http sources: the URLs to read for a server, best first (a later one when an earlier is refused);
    # none means the server has no such agent configured, and the source is not polled there.
    endpoints: Callable[[Target], tuple[str, ...]] | None = None
    flavors: frozenset[str] = frozenset(("mysql", "mariadb"))
    min_version: dict[str, tuple[int, int, int]] = field(default_factory=dict)
    interval: int | None = None  # seconds; None means the server's poll interval
    # The values from readings this poll already made (by source name), sparing the server a
    # statement; None when they are not there (that source not due, or not run): collect() then.
    derive: Callable[[dict[str, Reading], ServerInfo], Reading | None] | None = None
    # (flavor, version) -> True where the source is cheap there and runs at the poll interval anyway.
    cheap_on: Callable[[str, tuple[int, int, int]], bool] | None = None
    # Seconds between reads on a server whose last reading was quiet (Reading.quiet), if longer.
    quiet_interval: int | None = None
    # Scalar SQL expressions (counted_sql) this source's read can put in the poll's shared statement
    # on this server (collectors.shared_read; () where it reads alone), and its reading made of
    # their texts (None: they did not add up, collect() then).
    shared: Callable[[ServerInfo], tuple[str, ...]] | None = None
    from_shared: Callable[[tuple, Any, ServerInfo], Reading | None] | None = None
    # collect(conn, info, previous snapshot): a source that reads only what moved since its last read.
    since: bool = False
    # In place of collectors.delta.compute (previous, reading, ts, boot) -> (Delta, Snapshot), for a
    # source whose snapshot is more than running totals (the statement digests' per-digest state).
    compute: Callable | None = None
    # Seconds between reads on this server, where the server says (Server.statements_interval).
    interval_of: Callable[[Target], int] | None = None
    # It asks collectors.setup_changes' sums as read in this poll at each read (SetupWatch.due's this_poll):
    # the poll's shared statement then brings them.
    setup_every_read: bool = False

    def unsupported_reason(self, info: ServerInfo) -> str | None:
        """Why this source cannot run on this server, or None if it can."""
        if info.flavor not in self.flavors:
            return f"not available on {info.label}"
        minimum = self.min_version.get(info.flavor, (0, 0, 0))
        if info.version_tuple < minimum:
            return f"needs {info.flavor} {'.'.join(map(str, minimum))} or later (server is {info.label})"
        return None

    def configured(self, target: Target) -> bool:
        """Whether this server has what the source reads (every server has a MySQL connection)."""
        return self.endpoints is None or bool(self.endpoints(target))

    def interval_for(self, poll_interval: int, flavor: str = "", version: tuple[int, int, int] = (0, 0, 0)) -> int:
        """Seconds between reads on a server of this flavor and version (as last detected)."""
        if self.cheap_on is not None and self.cheap_on(flavor, version):
            return poll_interval
        return max(poll_interval, self.interval or 0)


def query(conn: pymysql.Connection, sql: str, args=None) -> list[tuple]:
    with conn.cursor() as cur:
        cur.execute(sql, args)
        return list(cur.fetchall())


def joined_rows(conn: pymysql.Connection, sql: str, fallback_sql: str) -> list[tuple]:
    """Rows the server joined into one text (see joined_sql): one packet to parse instead of hundreds.

    PyMySQL parses each row packet in Python, which was the collector's largest CPU cost
    per poll. A text cut short (group_concat_max_len) or a value holding a separator
    makes the line count differ from the row count: then the plain statement is run.
    """
    rows = query(conn, sql)
    found = split_joined(*rows[0]) if rows else []
    return query(conn, fallback_sql) if found is None else found


def split_joined(count, text) -> list[tuple] | None:
    """The rows of one joined text; None when its lines do not add up to its row count."""
    if not count:
        return []
    if isinstance(text, bytes):
        text = text.decode(errors="replace")
    lines = text.split(ROW_SEP) if text else []
    if len(lines) != int(count):
        return None
    return [tuple(line.split(FIELD_SEP)) for line in lines]


def joined_sql(columns: str, rest: str) -> str:
    """SELECT COUNT(*), GROUP_CONCAT(columns) ...: the statement joined_rows() reads.

    columns are joined by FIELD_SEP and rows by ROW_SEP, written into the SQL as the
    characters themselves (no backslash escapes, so NO_BACKSLASH_ESCAPES cannot change them).
    GROUP_CONCAT's own argument list, not CONCAT() inside it nor COUNT(expression): those
    made MariaDB's statement time for the status table five times that of SHOW GLOBAL STATUS.
    A row with a NULL column is left out of the text but counted: the fallback then reads it.
    """
    return f"SELECT COUNT(*), {group_concat(columns)} {rest}"


def group_concat(columns: str) -> str:
    fields = f", '{FIELD_SEP}', ".join(c.strip() for c in columns.split(","))
    return f"GROUP_CONCAT({fields} SEPARATOR '{ROW_SEP}')"


def counted_sql(columns: str, rest: str) -> str:
    """(SELECT 'count<ROW_SEP>rows' ...): joined rows as one scalar, so that several reads share a statement.

    A scalar subquery, not a derived table: MariaDB materializes a derived table's GROUP_CONCAT
    text into a temporary table, which cost 0.45 ms more per statement (docs/benchmarks.md).
    """
    return f"(SELECT CONCAT_WS('{ROW_SEP}', COUNT(*), {group_concat(columns)}) {rest})"


def from_counted(make: Callable[[list[tuple]], Reading]) -> Callable[[tuple, Any, ServerInfo], Reading | None]:
    """A Source.from_shared for a source with one counted_sql() part: make() of its rows, None if they do not add up."""
    def from_shared(texts: tuple, conn: Any, info: ServerInfo) -> Reading | None:
        rows = split_counted(texts[0])
        return None if rows is None else make(rows)
    return from_shared


def sql_list(names) -> str:
    """'a', 'b', ...: names (constants of ours, never user input) for an IN (...) list."""
    return ", ".join(f"'{name}'" for name in names)


def split_counted(text) -> list[tuple] | None:
    """The rows of one counted_sql() scalar; None when they do not add up to its count."""
    if isinstance(text, bytes):
        text = text.decode(errors="replace")
    count, _, rows = (text or "").partition(ROW_SEP)
    return split_joined(int(count or 0), rows)


def counted_fields(text, width: int) -> list[str] | None:
    """The fields of one counted_sql() scalar of width columns, row after row, split in one pass.

    None where split_counted() must decide: rows that do not add up to the count, or a row whose
    field count is not width (a separator inside a value). A few hundred rows a poll split line by
    line were a visible share of a poll's CPU; one split of the whole text is C, not Python.
    """
    if isinstance(text, bytes):
        text = text.decode(errors="replace")
    count_text, _, rows = (text or "").partition(ROW_SEP)
    count = int(count_text or 0)
    if not count:
        return []
    if rows.count(ROW_SEP) != count - 1:
        return None
    fields = rows.replace(ROW_SEP, FIELD_SEP).split(FIELD_SEP)
    return fields if len(fields) == count * width else None


_INT_ONLY = frozenset((int,))


def integers(texts: Sequence[str]) -> list[int]:
    """int() of each text: in one pass of C where every text spells a plain integer as JSON does (within 64
    bits), else int() of each (its ValueError the caller's to handle, as before).

    The ~300 status and ~200 wait values of a poll through int() one by one were a tenth of their parse.
    A text holding a comma or bracket cannot pass for one integer: the count or a type would differ.
    """
    try:
        found = orjson.loads("[" + ",".join(texts) + "]")
    except (orjson.JSONDecodeError, TypeError):
        return list(map(int, texts))
    if len(found) != len(texts) or not _INT_ONLY.issuperset(map(type, found)):
        return list(map(int, texts))  # a decimal, a bool, an integer past 64 bits (a float to orjson)
    return found


def picker(keys: Sequence) -> Callable[[Any], tuple]:
    """The items at these positions of a sequence (or keys of a mapping), as a tuple whatever their number
    (operator.itemgetter's, which gives one item alone)."""
    if len(keys) > 1:
        return itemgetter(*keys)
    if keys:
        only = keys[0]
        return lambda items: (items[only],)
    return lambda items: ()


def number(text) -> int | float | None:
    """A status or variable value as a number; None for text values (ON, file names...)."""
    if isinstance(text, (int, float)):
        return text
    if text is None:
        return None
    if isinstance(text, bytes):
        text = text.decode(errors="replace")
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return None


def require_performance_schema(info: ServerInfo, source: str) -> None:
    if not info.performance_schema:
        raise SourceUnavailable(
            f"performance_schema is OFF on this server, so {source} has nothing to read; {pfs_on_fix(info.flavor)}"
        )
