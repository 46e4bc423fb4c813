# SELECT ... FROM performance_schema.setup_consumers / setup_instruments, information_schema.INNODB_METRICS.
"""What a server's configuration leaves off that SteadyState reads, and which figure each one weakens.

A default MariaDB (and MySQL 5.7) leaves most of these off: the figures stay exact but silently
lose what the off thing would have counted (measured on MariaDB 10.11 with performance_schema=ON:
the transaction instrument, every wait/synch instrument, wait/io/socket and the
events_statements_current consumer are off). Test connection and `addserver --check` read them
here (a few statements, once); the pages say the same from the latest polls (the TPS sentence of
collectors.transactions, the reason oldest_trx gives for a holder's missing statement).
"""

from dataclasses import dataclass

import pymysql

from collectors import transactions
from collectors.connection import ServerInfo
from collectors.monitor_enable import PURGE_DRAWN, PURGE_ENTRIES, config_hint, pfs_on_fix, statement

# The consumers an idle holder's last statement needs, in the order performance_schema applies them.
STATEMENT_CONSUMERS = ("global_instrumentation", "thread_instrumentation", "events_statements_current")
CONSUMERS_SQL = ("SELECT NAME, ENABLED FROM performance_schema.setup_consumers WHERE NAME IN ("
                 + ", ".join(f"'{name}'" for name in STATEMENT_CONSUMERS) + ")")
# The wait instruments the waits and mutex charts read, per family: (family, instruments on and timed, all).
WAIT_FAMILIES = ("wait/synch", "wait/io")
INSTRUMENTS_SQL = ("SELECT SUBSTRING_INDEX(NAME, '/', 2) AS family, SUM(ENABLED = 'YES' AND TIMED = 'YES'), COUNT(*)"
                   " FROM performance_schema.setup_instruments WHERE NAME LIKE 'wait/synch/%' OR NAME LIKE 'wait/io/%'"
                   " GROUP BY family")
# The purge page's counters (off by default on every version).
PURGE_METRICS_SQL = ("SELECT COUNT(*) FROM information_schema.INNODB_METRICS WHERE NAME IN ("
                     + ", ".join(f"'{name}'" for name in PURGE_DRAWN) + ") AND NOT {enabled}")
PURGE_METRICS_ENTRIES = PURGE_ENTRIES  # INNODB_METRICS entries: statements now, the option file's list
PURGE_METRICS_ON = "; ".join(statement(entry) for entry in PURGE_METRICS_ENTRIES)


@dataclass(frozen=True)
class Weakened:
    """One thing the server leaves off: what it is, the figure that loses by it, what is lost, how to turn it on."""

    setting: str
    figure: str
    lost: str
    fix: str
    state: str = "off"  # what became of the setting: off, or refused to the monitoring user (tps_state)

    def line(self) -> str:
        return f"{self.setting} {self.state}: {self.figure}: {self.lost}; {self.fix}"


def consumers_fix(names: list[str]) -> str:
    listed = ", ".join(f"'{name}'" for name in names)
    config = " ".join(f"performance-schema-consumer-{name.replace('_', '-')}=ON" for name in names)
    return (f"run UPDATE performance_schema.setup_consumers SET ENABLED='YES' WHERE NAME IN ({listed}) "
            f"(and add {config} to the server configuration)")


STATEMENT_LOST = ("an idle transaction's last statement (the one holding purge back) cannot be named: the purge "
                  "page and the alert mails show the holder without its statement")


def tps_counter(info: ServerInfo) -> Weakened | None:
    """The TPS counter, worded as the stability page words it (collectors.transactions)."""
    if info.tps_basis != transactions.EXPLICIT:
        return None
    return Weakened("a counter of every transaction (performance_schema's transaction instrument, InnoDB's "
                    "trx_*_commits)", "TPS", transactions.DEFINITIONS[transactions.EXPLICIT],
                    transactions.enable_hint(info.flavor, info.version_tuple, info.performance_schema,
                                             info.tps_refused), tps_state(info))


# A counter the monitoring user may not read (transactions.basis), and the privilege it lacks for it.
REFUSED_COUNTERS = {transactions.TRX_SUMMARY: ("SELECT on performance_schema", "its transaction summary"),
                    transactions.INNODB_TRX: ("PROCESS", "InnoDB's trx_*_commits")}
COUNTERS_SINCE = {transactions.TRX_SUMMARY: transactions.TRX_SUMMARY_SINCE,
                  transactions.INNODB_TRX: transactions.INNODB_TRX_SINCE}


def tps_state(info: ServerInfo) -> str:
    """"off", or the counters the server refused to the monitoring user: they may well be on, and the fix
    is the GRANT the hint names, not the statement that turns them on."""
    refused = [REFUSED_COUNTERS[c] for c in transactions.PREFERENCE if c in info.tps_refused]
    if not refused:
        return "off"
    lacks = " and ".join(f"{grant} ({what})" for grant, what in refused)
    # A counter this server has that was read (and found off) leaves both causes open.
    return f"{'refused' if has_only_refused(info) else 'off, or refused'} to the monitoring user, which lacks {lacks}"


def has_only_refused(info: ServerInfo) -> bool:
    """Whether every counter of every transaction this version has was refused: none was read and found off, nor
    is off with performance_schema."""
    has = {counter for counter, since in COUNTERS_SINCE.items()
           if info.version_tuple >= since.get(info.flavor, (99, 0, 0))}
    return has <= info.tps_refused


# performance_schema came with MySQL 5.5.3 and MariaDB 5.5: an older server has none to turn on (a
# performance_schema line in its configuration would stop it starting). Statement events, which name an idle
# holder's last statement, came with MySQL 5.6 and MariaDB 10.0.
PFS_SINCE = {"mysql": (5, 5, 3), "mariadb": (5, 5, 0)}
STATEMENT_EVENTS_SINCE = {"mysql": (5, 6, 0), "mariadb": (10, 0, 0)}
# SHOW ENGINE INNODB MUTEX returns nothing from MariaDB 10.6: the mutex chart reads performance_schema there only.
MUTEX_FROM_PFS_SINCE = {"mariadb": (10, 6, 0)}


def mutex_from_pfs(flavor: str, version: tuple[int, int, int]) -> bool:
    """Whether the mutex chart reads performance_schema on this flavor and version (collectors.sources.innodb_mutex)."""
    return version >= MUTEX_FROM_PFS_SINCE.get(flavor, (99, 0, 0))


def has_statement_events(info: ServerInfo) -> bool:
    """Whether this version's performance_schema keeps statement events (events_statements_current)."""
    return info.version_tuple >= STATEMENT_EVENTS_SINCE.get(info.flavor, (99, 0, 0))


def performance_schema_off(info: ServerInfo) -> list[Weakened]:
    """What performance_schema OFF costs on this version: the mutex chart only where it reads performance_schema
    (MariaDB 10.6+; elsewhere SHOW ENGINE INNODB MUTEX), the holder's statement only where there are statement
    events, and nothing to turn on where the version has no performance_schema."""
    if info.performance_schema:
        return []
    if info.version_tuple < PFS_SINCE.get(info.flavor, (99, 0, 0)):
        return [Weakened("performance_schema", "waits",
                         f"{info.label} has no performance_schema (MySQL 5.5.3 and MariaDB 5.5 brought it): "
                         "the wait charts and top-waits tables stay empty",
                         "no setting turns it on in this version: upgrade to have it")]
    mutex, statement = mutex_from_pfs(info.flavor, info.version_tuple), has_statement_events(info)
    figures = ["waits"] + ["mutex waits"] * mutex + ["the purge holder's statement"] * statement
    lost = ("the wait and mutex charts are empty" if mutex else "the wait charts are empty") + (
        " and an idle holder's statement cannot be named" if statement else "")
    return [Weakened("performance_schema", spoken(figures), lost, pfs_on_fix(info.flavor))]


def spoken(items: list[str]) -> str:
    """a, b and c."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def consumers_off(conn: pymysql.Connection) -> list[Weakened]:
    rows = dict(answer(conn, CONSUMERS_SQL))
    off = [name for name in STATEMENT_CONSUMERS if rows.get(name, "YES") != "YES"]
    if not off:
        return []
    return [Weakened(f"performance_schema consumer {', '.join(off)}", "the purge holder's statement",
                     STATEMENT_LOST, consumers_fix(off))]


def instrument_counts(conn: pymysql.Connection) -> dict[str, tuple[int, int]]:
    """Per wait family: (instruments not both enabled and timed, all of them); none without the privilege."""
    return {family: (int(total) - int(on or 0), int(total))
            for family, on, total in answer(conn, INSTRUMENTS_SQL) if family in WAIT_FAMILIES}


def instruments_off(conn: pymysql.Connection, info: ServerInfo | None = None) -> list[Weakened]:
    return [family_off(family, off, total, info) for family, (off, total) in instrument_counts(conn).items() if off]


# The option that keeps an instrument on in the server configuration came with MySQL 5.6.4 and MariaDB 10.0:
# a performance-schema-instrument line would stop a MySQL 5.5 or MariaDB 5.5 server starting.
INSTRUMENT_OPTION_SINCE = {"mysql": (5, 6, 4), "mariadb": (10, 0, 0)}


def family_off(family: str, off: int, total: int, info: ServerInfo | None = None) -> Weakened:
    """off of a family's total wait instruments are off: what the waits figures lose, and the statement (with the
    configuration line that keeps it, where the server's version has one; info None: a version that has)."""
    keep = (f"and add performance-schema-instrument='{family}/%=ON' to the server configuration"
            if info is None or info.version_tuple >= INSTRUMENT_OPTION_SINCE.get(info.flavor, (0, 0, 0)) else
            f"again after each restart: {info.label} has no option that keeps it in the server configuration")
    # The mutex chart reads performance_schema on MariaDB 10.6+ only (SHOW ENGINE INNODB MUTEX elsewhere).
    mutex = family == "wait/synch" and (info is None or mutex_from_pfs(info.flavor, info.version_tuple))
    return Weakened(
        f"{off} of {total} {family}/% instruments (enabled and timed)",
        "waits and mutex waits" if mutex else "waits",
        f"waits of the instruments that are off are not counted: the waits rows and top-waits tables leave "
        f"them out{' (and the MariaDB 10.6+ mutex row)' if family == 'wait/synch' else ''}",
        f"run UPDATE performance_schema.setup_instruments SET ENABLED='YES', TIMED='YES' WHERE NAME LIKE "
        f"'{family}/%' ({keep})")


def purge_counters_off(conn: pymysql.Connection, info: ServerInfo) -> list[Weakened]:
    if info.version_tuple < transactions.INNODB_TRX_SINCE.get(info.flavor, (99, 0, 0)):
        return []
    found = answer(conn, PURGE_METRICS_SQL.format(enabled=transactions.enabled_column(info.flavor, info.version_tuple)))
    off = int(found[0][0]) if found else 0
    if not off:
        return []
    return [Weakened(f"{off} of the purge page's {len(PURGE_DRAWN)} InnoDB purge counters (INNODB_METRICS "
                     f"{', '.join(PURGE_DRAWN)})", "purge counters",
                     "the purge page has no purge rates (records purged, undo pages, DML delay) to draw",
                     f"run {PURGE_METRICS_ON} (and {config_hint(PURGE_METRICS_ENTRIES)})")]


# What Test connection says where performance_schema is ON but the user may not read it (the privilege check
# names the GRANT): not "nothing off", which is what the unreadable tables would otherwise look like.
SETUP_UNREADABLE = Weakened(
    "performance_schema's consumers and wait instruments, unreadable to this user, may be",
    "waits, mutex waits and the purge holder's statement",
    "which of them are cannot be listed until it may read performance_schema",
    "give the monitoring user SELECT ON performance_schema.* (the GRANT above), then test again")
DENIED = (1044, 1142, 1146, 1227)  # access denied to a database or table, no such table, a privilege missing


def setup_readable(conn: pymysql.Connection) -> bool:
    """Whether this user may read performance_schema's setup tables (the consumers, as the check reads them)."""
    try:
        with conn.cursor() as cur:
            cur.execute(CONSUMERS_SQL)
            cur.fetchall()
    except pymysql.MySQLError as exc:
        if exc.args and exc.args[0] in DENIED:
            return False
        raise
    return True


def answer(conn: pymysql.Connection, sql: str) -> list[tuple]:
    """The rows, text decoded; none where the user may not read the table (the privilege check says so)."""
    try:
        with conn.cursor() as cur:
            cur.execute(sql)
            rows = cur.fetchall()
    except pymysql.MySQLError as exc:
        if exc.args and exc.args[0] in DENIED:
            return []
        raise
    return [tuple(v.decode() if isinstance(v, bytes) else v for v in row) for row in rows]


def read_weakened(conn: pymysql.Connection, info: ServerInfo) -> list[Weakened]:
    """Everything this server leaves off that a figure needs, each with what it costs and how to turn it on."""
    found = [w for w in (tps_counter(info),) if w] + performance_schema_off(info)
    if info.performance_schema:
        found += consumers_off(conn) + instruments_off(conn, info) if setup_readable(conn) else [SETUP_UNREADABLE]
    return found + purge_counters_off(conn, info)
