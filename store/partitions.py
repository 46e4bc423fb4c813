"""Time partitions of the store's tables: naming, creation ahead of time, dropping.

Retention is DROP TABLE of whole partitions, never DELETE.
"""

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.db import connection, transaction
from django.db.utils import DatabaseError

from store.request_memo import RequestMemo

# Create one partition; IF NOT EXISTS because other workers may race us.
CREATE_PARTITION = (
    "CREATE TABLE IF NOT EXISTS {name} PARTITION OF {table} "
    "FOR VALUES FROM ('{start}') TO ('{end}'){storage}"
)
# Is there a table of that name (no DDL, no lock on the parent, if there is)?
EXISTS = "SELECT to_regclass(%s)"
# Creating a partition locks its parent: never queue behind a long query for more than this
# (a writer that times out buffers its samples in Redis and retries later).
LOCK_TIMEOUT = "SET LOCAL lock_timeout = '5s'"
LOCK_TIMEOUT_DEFAULT = "SET LOCAL lock_timeout TO DEFAULT"
# The partitions of a table, by name.
LIST_PARTITIONS = (
    "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
    "JOIN pg_class p ON p.oid = i.inhparent WHERE p.relname = %s"
)
# Drop one partition (retention; compaction of a hot hour).
DROP_PARTITION = "DROP TABLE IF EXISTS {name}"
# Whether a partition holds anything (compaction skips, retention keeps, one that does).
HAS_ROWS = "SELECT EXISTS (SELECT 1 FROM {name})"


@dataclass(frozen=True)
class Scheme:
    table: str
    unit: str  # "hour", "day" or "month"
    # Hot rows hold ~3 kB arrays: compress them even below the 2 kB default.
    storage: str = ""

    def floor(self, t: datetime) -> datetime:
        t = t.astimezone(UTC)
        if self.unit == "hour":
            return t.replace(minute=0, second=0, microsecond=0)
        if self.unit == "day":
            return t.replace(hour=0, minute=0, second=0, microsecond=0)
        return t.replace(day=1, hour=0, minute=0, second=0, microsecond=0)

    def next(self, start: datetime) -> datetime:
        if self.unit == "hour":
            return start + timedelta(hours=1)
        if self.unit == "day":
            return start + timedelta(days=1)
        return (start + timedelta(days=32)).replace(day=1)

    def name(self, start: datetime) -> str:
        fmt = {"hour": "%Y%m%d%H", "day": "%Y%m%d", "month": "%Y%m"}[self.unit]
        return f"{self.table}_p{start.strftime(fmt)}"

    def start_of(self, name: str) -> datetime:
        fmt = {"hour": "%Y%m%d%H", "day": "%Y%m%d", "month": "%Y%m"}[self.unit]
        return datetime.strptime(name.rsplit("_p", 1)[1], fmt).replace(tzinfo=UTC)


RAW = Scheme("store_raw", "hour", " WITH (toast_tuple_target = 128)")
BLOCK = Scheme("store_block", "day")
BLOCK_SERIES = Scheme("store_block_series", "day")
ROLLUP_1M = Scheme("store_rollup_1m", "day")
ROLLUP_1H = Scheme("store_rollup_1h", "month")
STATEMENT = Scheme("store_statement", "day")  # statement digests' per-interval rows (store.statements)
STATEMENT_HOUR = Scheme("store_statement_hour", "day")  # their hourly rollups (store.statement_hours)
ALL = (RAW, BLOCK, BLOCK_SERIES, ROLLUP_1M, ROLLUP_1H, STATEMENT, STATEMENT_HOUR)

_known: set[str] = set()  # partitions this process has seen exist
KEEP_OLDEST_S = 5.0  # the longest a request keeps a table's oldest partition without listing again
# Each table's oldest start, listed again after this process creates or drops a partition.
_OLDEST: RequestMemo[datetime | None] = RequestMemo(KEEP_OLDEST_S)


def forget() -> None:
    """Drop the cache, e.g. after an insert found a partition missing."""
    _known.clear()
    _forget_oldest()


def keep_oldest(**_signal) -> None:
    """From now on (a request starts) oldest() answers from what it listed, for up to KEEP_OLDEST_S."""
    _OLDEST.start()


def stop_keeping_oldest(**_signal) -> None:
    """The request ended: every oldest() lists the partitions again (a worker's maintenance drops them)."""
    _OLDEST.stop()


def _forget_oldest() -> None:
    _OLDEST.changed()


def oldest(scheme: Scheme) -> datetime | None:
    """The start of the table's oldest partition (None: it has none). Listed on every call, except in a
    request (store.apps): there a page's 15-32 asks list each table once, again after KEEP_OLDEST_S, and
    after this process creates or drops a partition."""
    return _OLDEST.get(scheme.table, lambda: min((scheme.start_of(name) for name in existing(scheme)), default=None))


def ensure(scheme: Scheme, t: datetime) -> str:
    """Make sure the partition holding time t exists; return its name."""
    start = scheme.floor(t)
    name = scheme.name(start)
    if name in _known:
        return name
    sql = CREATE_PARTITION.format(
        name=name, table=scheme.table, start=start.isoformat(),
        end=scheme.next(start).isoformat(), storage=scheme.storage,
    )
    try:
        with transaction.atomic(), connection.cursor() as cur:
            cur.execute(EXISTS, [name])
            if cur.fetchone()[0] is None:
                cur.execute(LOCK_TIMEOUT)
                cur.execute(sql)
                cur.execute(LOCK_TIMEOUT_DEFAULT)
                _forget_oldest()
    except DatabaseError:
        # Another worker created it between our check and our CREATE.
        if name not in existing(scheme):
            raise
    _known.add(name)
    return name


def ensure_range(scheme: Scheme, start: datetime, end: datetime) -> None:
    t = scheme.floor(start)
    while t <= end:
        ensure(scheme, t)
        t = scheme.next(t)


def existing(scheme: Scheme) -> list[str]:
    with connection.cursor() as cur:
        cur.execute(LIST_PARTITIONS, [scheme.table])
        return sorted(r[0] for r in cur.fetchall())


def drop(name: str) -> None:
    with connection.cursor() as cur:
        cur.execute(DROP_PARTITION.format(name=name))
    _known.discard(name)
    _forget_oldest()


def drop_older_than(scheme: Scheme, cutoff: datetime) -> list[str]:
    """Drop the partitions whose whole range ends at or before cutoff."""
    dropped = []
    for name in existing(scheme):
        if scheme.next(scheme.start_of(name)) <= cutoff:
            drop(name)
            dropped.append(name)
    return dropped


def has_rows(name: str) -> bool:
    with connection.cursor() as cur:
        cur.execute(HAS_ROWS.format(name=name))
        return cur.fetchone()[0]
