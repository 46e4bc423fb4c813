# SELECT ... FROM performance_schema.setup_instruments (collectors.weakened.INSTRUMENTS_SQL), a minute apart.
"""Wait instruments off, per family: stored every poll, so that a range's waits say whether they were weakened.

The instruments change rarely, and reading them costs the server 0.69 ms (MariaDB 10.11, docs/benchmarks.md):
a connection reads them once, then again when collectors.setup_changes, asked every INSTRUMENTS_EVERY_S, says
they may have changed; each poll in between repeats that read without a statement. pfs_waits says the same in
its note, from the same read.
"""

import pymysql

from collectors import setup_changes, weakened
from collectors.connection import ServerInfo
from collectors.metric import Metric
from collectors.source import Reading, Source, SourceUnavailable, require_performance_schema

NAME = "wait_instruments"

# How often collectors.setup_changes is asked whether they changed: a change shows within a minute, as the README says.
INSTRUMENTS_EVERY_S = 60
OFF_PREFIX = "wait instruments off: "  # pfs_waits's note, kept in the health row
OFF_GAUGE, ALL_GAUGE = "wait.instruments_off:", "wait.instruments:"  # + a family of weakened.WAIT_FAMILIES
# Per connection: the note and the gauges, as last read.
CHECKED: setup_changes.KeptSetup[tuple[str, dict[str, int]]] = setup_changes.KeptSetup()
REFUSED = ("the monitoring user may not read performance_schema.setup_instruments, so which wait instruments are "
           "off cannot be read: GRANT SELECT ON performance_schema.* TO the monitoring user (docs/privileges.md)")


def instruments_check(conn: pymysql.Connection, info: ServerInfo) -> tuple[str, dict[str, int]]:
    """Which wait instruments the server leaves off, and how to turn them on ("" when all are on); the gauges
    (none where the user may not read setup_instruments)."""
    return CHECKED.get(conn, info, INSTRUMENTS_EVERY_S, lambda: instruments_read(conn, info))


def instruments_read(conn: pymysql.Connection, info: ServerInfo) -> tuple[str, dict[str, int]]:
    counts = weakened.instrument_counts(conn)
    off = [weakened.family_off(family, n, total, info) for family, (n, total) in counts.items() if n]
    note = OFF_PREFIX + "; ".join(f"{w.setting}: {w.lost}; {w.fix}" for w in off) if off else ""
    gauges = {OFF_GAUGE + family: n for family, (n, _) in counts.items()}
    gauges |= {ALL_GAUGE + family: total for family, (_, total) in counts.items()}
    return note, gauges


def collect(conn: pymysql.Connection, info: ServerInfo) -> Reading:
    require_performance_schema(info, NAME)
    gauges = instruments_check(conn, info)[1]
    # A server always has wait instruments: none read means the read was refused (asked only then).
    if not gauges and not weakened.setup_readable(conn):
        raise SourceUnavailable(REFUSED)
    return Reading(gauges)


METRICS = (
    Metric.gauge(OFF_GAUGE, "instruments", "wait instruments of a family (wait/synch, wait/io) not both enabled "
                 "and timed, as last read (within a minute of a change)"),
    Metric.gauge(ALL_GAUGE, "instruments", "wait instruments of a family (wait/synch, wait/io), on or off"),
)


SOURCE = Source(
    name=NAME,
    help="performance_schema.setup_instruments: wait.instruments_off:<family> and wait.instruments:<family> "
         "(wait/synch, wait/io), read again within a minute of a change, stored every poll",
    flavors=frozenset(("mysql", "mariadb")),
    min_version={"mysql": (5, 5, 3), "mariadb": (5, 5, 0)},
    interval=None,
    collect=collect,
    metrics=METRICS,
)
