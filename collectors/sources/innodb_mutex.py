# SHOW ENGINE INNODB MUTEX (MariaDB 10.6+: performance_schema wait/synch/{mutex,rwlock,sxlock}/innodb/%,
# taken from the same poll's pfs_waits reading when it has one).
"""InnoDB mutex and rw-lock waits, in every format the servers print.

- MySQL 5.1.2-5.1.14: Name `&kernel_mutex:srv0srv.c`, Status `os_waits=N`.
- MySQL 5.1.15+/5.5/5.6: Name `file:line` (often with a build path), Status `os_waits=N`;
  debug builds print `count=N, spin_waits=N, spin_rounds=N, os_waits=N, ...`;
  the same file:line may appear once per instance (summed here).
- MySQL 5.7.8+/8.x: rw-locks as `rwlock: file:line` / `sum rwlock: file:line` with `waits=N`,
  named mutexes (when innodb_monitor_enable='latch') with `spins=N,waits=N,calls=N`.
- MariaDB 10.6+ returns no rows: the same latches are read from performance_schema, out of
  the poll's pfs_waits reading (no statement of its own) whenever that source ran.
"""

import re
from collections.abc import Callable, Mapping

import pymysql

from collectors import weakened
from collectors.connection import ServerInfo
from collectors.metric import PS, Metric
from collectors.source import Reading, Source, SourceUnavailable, joined_rows, joined_sql, picker, query

NAME = "innodb_mutex"

# Needs PROCESS; takes InnoDB's latch-list mutex while it walks all latches.
MUTEX_SQL = "SHOW ENGINE INNODB MUTEX"
# MariaDB 10.6+ fallback: InnoDB latches as performance_schema instruments them.
LATCHES_COLUMNS = "EVENT_NAME, COUNT_STAR, SUM_TIMER_WAIT"
LATCHES_FROM = (
    "FROM performance_schema.events_waits_summary_global_by_event_name"
    " WHERE COUNT_STAR > 0 AND (EVENT_NAME LIKE 'wait/synch/mutex/innodb/%'"
    " OR EVENT_NAME LIKE 'wait/synch/rwlock/innodb/%' OR EVENT_NAME LIKE 'wait/synch/sxlock/innodb/%')"
)
PFS_LATCHES_SQL = f"SELECT {LATCHES_COLUMNS} {LATCHES_FROM}"
# The same rows as one text (collectors.source.joined_rows).
PFS_LATCHES_JOINED_SQL = joined_sql(LATCHES_COLUMNS, LATCHES_FROM)
# pfs_waits reads every event with COUNT_STAR > 0 from the same table: its latch rows are these.
LATCH_PREFIXES = ("wait/synch/mutex/innodb/", "wait/synch/rwlock/innodb/", "wait/synch/sxlock/innodb/")
LATCH_METRIC = {"wait.count": "mutex.waits", "wait.time_ps": "mutex.time_ps"}
# The stability chart's mutex row names what its counts are (dashboards.views.common.server_texts):
# SHOW ENGINE INNODB MUTEX counts waits that went to the OS; performance_schema counts every
# acquisition of an instrumented latch, contended or not (thousands a second on a light load).
CHART_TITLE = "InnoDB mutex/rw-lock waits per second (SHOW ENGINE INNODB MUTEX)"
PFS_CHART_TITLE = "InnoDB latch acquisitions per second (performance_schema, contended or not)"
PFS_FALLBACK_NOTE = ("MariaDB 10.6+ returns nothing for SHOW ENGINE INNODB MUTEX: InnoDB latch waits are read "
                     "from performance_schema wait/synch/{mutex,rwlock,sxlock}/innodb/% instead")

PAIR = re.compile(r"(\w+)=(\d+)")
# Build paths differ by packager: keep what follows the InnoDB source root.
SOURCE_ROOT = re.compile(r"^.*?(?:storage/(?:innobase|innodb_plugin|xtradb)/|\.\./)+")
# Which Status key holds the waits, spins and calls in each format.
WAIT_KEYS = ("waits", "os_waits")
SPIN_KEYS = ("spins", "spin_waits")
CALL_KEYS = ("calls", "count")


def latch_name(raw: str) -> str:
    """`sum rwlock: buf0buf.cc:1466` -> `rwlock:buf0buf.cc:1466`; build paths stripped."""
    name = raw.strip()
    kind = ""
    match = re.match(r"^(?:sum\s+|combined\s+)?(rwlock|mutex):\s*", name)
    if match:
        kind, name = match.group(1) + ":", name[match.end():]
    elif name.startswith("combined "):
        name = name[len("combined "):]
    return kind + SOURCE_ROOT.sub("", name)


def parse_status(status: str) -> dict[str, int]:
    pairs = {key: int(value) for key, value in PAIR.findall(status)}
    out = {}
    for metric, keys in (("waits", WAIT_KEYS), ("spins", SPIN_KEYS), ("calls", CALL_KEYS)):
        for key in keys:
            if key in pairs:
                out[metric] = pairs[key]
                break
    return out


def parse_mutex_rows(rows: list[tuple]) -> dict[str, int]:
    """Rows of (Type, Name, Status) -> {mutex.waits:<name>: N, ...}, summing repeated names."""
    values: dict[str, int] = {}
    for row in rows:
        name, status = (row[1], row[2]) if len(row) >= 3 else row
        if isinstance(name, bytes):
            name, status = name.decode(), status.decode()
        key = latch_name(name)
        for metric, count in parse_status(status).items():
            full = f"mutex.{metric}:{key}"
            values[full] = values.get(full, 0) + count
    return values


# MySQL 5.6.14 removed most of SHOW ENGINE INNODB MUTEX's output and 5.7.2 the rest, until 5.7.8 brought it back
# revised (the 5.6 and 5.7 manuals): a chart of those versions misses the mutexes, which performance_schema counts.
SHOW_CUT, SHOW_BACK = (5, 6, 14), (5, 7, 8)
SHOW_CUT_NOTE = ("MySQL 5.6.14 to 5.7.7 list little or nothing in SHOW ENGINE INNODB MUTEX: InnoDB mutex waits are"
                 " counted by performance_schema instead, on the Waits page once its instruments are on (UPDATE"
                 " performance_schema.setup_instruments SET ENABLED = 'YES', TIMED = 'YES' WHERE NAME LIKE"
                 " 'wait/synch/%/innodb/%')")


def reads_pfs(flavor: str, version: tuple[int, int, int]) -> bool:
    """MariaDB 10.6+: the latches come from performance_schema, a summary read as cheap as pfs_waits."""
    return weakened.mutex_from_pfs(flavor, version)


def collect(conn: pymysql.Connection, info: ServerInfo) -> Reading:
    if reads_pfs(info.flavor, info.version_tuple):
        return collect_from_pfs(conn, info)
    values = parse_mutex_rows(query(conn, MUTEX_SQL))
    note = ""
    if info.flavor == "mysql" and SHOW_CUT <= info.version_tuple < SHOW_BACK:
        note = SHOW_CUT_NOTE
    elif info.flavor == "mysql" and info.version_tuple >= SHOW_BACK and not any(
            k.startswith("mutex.spins:") for k in values):
        note = ("only rw-locks are listed: named mutex rows need "
                "SET GLOBAL innodb_monitor_enable = 'latch'")
    # A latch is listed only once it has waited, but its calls and spins counted before:
    # its first reading sets a baseline (absent_is_zero would store its total since boot).
    return Reading(values, frozenset(values), note=note)


def derive(readings: dict[str, Reading], info: ServerInfo) -> Reading | None:
    """MariaDB 10.6+: the latch rows of this poll's pfs_waits reading (the same table and filter), no statement."""
    waits = readings.get("pfs_waits")
    if waits is None or not reads_pfs(info.flavor, info.version_tuple):
        return None
    sources, names = LATCHES.get(waits.counters) or latch_names(waits.counters)
    # Counts and picosecond sums: integers.
    return pfs_reading(dict(zip(names, map(int, sources(waits.values)), strict=True)))


# The names of a pfs_waits reading -> what to take of it (its names are the same object every poll
# of a server, so this is one look-up, not a walk through a few hundred names).
LATCHES: dict[frozenset[str], tuple[Callable[[Mapping], tuple], tuple[str, ...]]] = {}
MAX_LATCHES = 256


def latch_names(waits: frozenset[str]) -> tuple[Callable[[Mapping], tuple], tuple[str, ...]]:
    """(the picker of the latch rows' values, their metric names)."""
    found: dict[str, str] = {}
    for name in waits:
        kind, _, event = name.partition(":")
        if event.startswith(LATCH_PREFIXES):
            found[name] = f"{LATCH_METRIC[kind]}:{event}"
    if len(LATCHES) >= MAX_LATCHES:
        LATCHES.clear()
    LATCHES[waits] = (picker(list(found)), tuple(found.values()))
    return LATCHES[waits]


def collect_from_pfs(conn: pymysql.Connection, info: ServerInfo) -> Reading:
    if not info.performance_schema:
        raise SourceUnavailable(
            "MariaDB 10.6+ has no SHOW ENGINE INNODB MUTEX output and performance_schema is OFF: "
            "set performance_schema=ON under [mariadb] in the server's option file (with wait/synch/% instruments)"
            " and restart it to see InnoDB latch waits")
    values: dict[str, int] = {}
    for event, count, timer in joined_rows(conn, PFS_LATCHES_JOINED_SQL, PFS_LATCHES_SQL):
        values[f"mutex.waits:{event}"] = int(count)
        values[f"mutex.time_ps:{event}"] = int(timer)
    return pfs_reading(values)


def pfs_reading(values: dict[str, int]) -> Reading:
    # COUNT_STAR > 0: a missing row was zero (exact, unlike SHOW ENGINE); TRUNCATE zeroes all rows.
    return Reading(values, frozenset(values), absent_is_zero=True, reset_together=True, note=PFS_FALLBACK_NOTE)



def chart_title(health: dict | None) -> str:
    """The mutex row's title for the server whose latest innodb_mutex poll left this health entry."""
    return PFS_CHART_TITLE if (health or {}).get("note", "").startswith(PFS_FALLBACK_NOTE) else CHART_TITLE

METRICS = (
    Metric.counter("mutex.waits:", "waits", "OS waits on an InnoDB mutex or rw-lock (acquisitions on MariaDB 10.6+)"),
    Metric.counter("mutex.spins:", "spins", "spin rounds on an InnoDB mutex"),
    Metric.counter("mutex.calls:", "calls", "calls of an InnoDB mutex"),
    Metric.counter("mutex.time_ps:", PS, "time waited on an InnoDB latch, from performance_schema (MariaDB 10.6+)"),
)


SOURCE = Source(
    name=NAME,
    help="SHOW ENGINE INNODB MUTEX: mutex.waits/spins/calls:<name>; MariaDB 10.6+ via performance_schema",
    flavors=frozenset(("mysql", "mariadb")),
    min_version={"mysql": (5, 1, 0), "mariadb": (5, 1, 0)},
    interval=60,  # InnoDB walks every latch to answer SHOW ENGINE INNODB MUTEX: not on every cheap poll
    cheap_on=reads_pfs,
    collect=collect,
    metrics=METRICS,
    derive=derive,
)
