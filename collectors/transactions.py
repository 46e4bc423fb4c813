# SELECT COUNT_STAR FROM performance_schema.events_transactions_summary_global_by_event_name (or INNODB_METRICS trx_*).
"""Which counter gives a server's TPS, and the sentence the pages show about it.

Measured on MariaDB 10.11 (docs/metrics.md, "How TPS is counted"): Com_commit + Com_rollback
misses every autocommit statement; Handler_commit counts each statement of an explicit
transaction plus its COMMIT (k + 1 per transaction) and each autocommit SELECT, so no sum of
status counters gives the transactions of a mixed workload. The transaction summary of
performance_schema and InnoDB's trx_*_commits counters count each transaction once,
autocommit ones included, but both are off by default: the collector uses the first one
the server has on, and says which.
"""

from collections.abc import Collection

import pymysql

from collectors.monitor_enable import config_hint, option_group

TRX_SUMMARY = "tps_trx_summary"  # performance_schema: every transaction (any engine, read-only too)
INNODB_TRX = "tps_innodb"  # INNODB_METRICS: InnoDB transactions, committed or rolled back
EXPLICIT = "tps_explicit"  # Com_commit + Com_rollback: explicit transactions only
PREFERENCE = (TRX_SUMMARY, INNODB_TRX, EXPLICIT)

# performance_schema as of MySQL 5.7.3 (MariaDB 10.5.2 took it over) has the transaction summary.
TRX_SUMMARY_SINCE = {"mysql": (5, 7, 3), "mariadb": (10, 5, 2)}
INSTRUMENT_SQL = (
    "SELECT (SELECT ENABLED FROM performance_schema.setup_instruments WHERE NAME = 'transaction'),"
    " (SELECT ENABLED FROM performance_schema.setup_consumers WHERE NAME = 'global_instrumentation')"
)
# The instrument can be turned off at any time: its count then stands still, which is not zero TPS.
TRX_SUMMARY_FROM = (
    "FROM performance_schema.events_transactions_summary_global_by_event_name s"
    " JOIN performance_schema.setup_instruments i ON i.NAME = s.EVENT_NAME WHERE s.EVENT_NAME = 'transaction'"
)
TRX_SUMMARY_SQL = f"SELECT s.COUNT_STAR, i.ENABLED {TRX_SUMMARY_FROM}"
# A rollback is counted in trx_rw_commits too (InnoDB ends it through the commit path).
INNODB_TRX_NAMES = "'trx_rw_commits', 'trx_ro_commits', 'trx_nl_ro_commits'"
INNODB_TRX_SINCE = {"mysql": (5, 6, 0), "mariadb": (10, 0, 0)}
INNODB_TRX_FROM = f"FROM information_schema.INNODB_METRICS WHERE NAME IN ({INNODB_TRX_NAMES}) AND {{enabled}}"
INNODB_TRX_SQL = f"SELECT COUNT(*), SUM(COUNT) {INNODB_TRX_FROM}"

# What turns a counter of every transaction on: the statement now, the configuration line to keep it.
TRX_SUMMARY_ON = "UPDATE performance_schema.setup_instruments SET ENABLED='YES' WHERE NAME='transaction'"
TRX_SUMMARY_CONFIG = "performance-schema-instrument='transaction=ON'"
INNODB_TRX_ON = "SET GLOBAL innodb_monitor_enable='trx_%'"
INNODB_TRX_ENTRIES = ("trx_%",)  # the same, in the option file's innodb_monitor_enable list
# INNODB_METRICS needs PROCESS: without it the server refuses the read whether the counters are on or off, so
# the statement that turns them on is no fix (docs/privileges.md grants PROCESS on *.*).
INNODB_TRX_GRANT = ("give the monitoring user the PROCESS privilege that InnoDB's trx_*_commits counters "
                    "(information_schema.INNODB_METRICS) need: GRANT PROCESS ON *.* TO the monitoring user "
                    "(docs/privileges.md)")
# The same for performance_schema: without SELECT on it, setup_instruments is refused whether the transaction
# instrument is on or off, and the UPDATE that turns it on is no fix.
TRX_SUMMARY_GRANT = ("give the monitoring user the SELECT on performance_schema that its transaction summary "
                     "(performance_schema.setup_instruments, events_transactions_summary_global_by_event_name) "
                     "needs: GRANT SELECT ON performance_schema.* TO the monitoring user (docs/privileges.md)")
DEFINITIONS = {
    TRX_SUMMARY: ("TPS = transactions per second from performance_schema's transaction summary "
                  "(every transaction: autocommit statements, read-only ones and rollbacks included)"),
    INNODB_TRX: ("TPS = InnoDB transactions per second (INNODB_METRICS trx_rw_commits + trx_ro_commits + "
                 "trx_nl_ro_commits: autocommit statements and rollbacks included, other engines not)"),
    EXPLICIT: ("TPS = (Com_commit + Com_rollback) per second: explicit transactions only, "
               "autocommit statements are not counted on this server"),
}
UNKNOWN = "TPS = transactions per second as the server's collector counts them (docs/metrics.md)"
# A chart's TPS row names the counter its line comes from, as the page's sentence does.
CHART_TITLES = {
    TRX_SUMMARY: "TPS (performance_schema transactions per second)",
    INNODB_TRX: "TPS (InnoDB trx_*_commits per second)",
    EXPLICIT: "TPS (Com_commit + Com_rollback per second)",
}
GENERIC_TITLE = "TPS (transactions per second)"
# A few words beside a TPS figure in tables (runs, compare): what it counts.
SHORT = {TRX_SUMMARY: "every transaction", INNODB_TRX: "InnoDB transactions",
         EXPLICIT: "explicit transactions only"}


def enable_hint(flavor: str, version: tuple[int, int, int], performance_schema: bool,
                refused: Collection[str] = ()) -> str:
    """What turns on a counter of every transaction on this server: the statement to run, the line to keep it;
    refused: the counters (TRX_SUMMARY, INNODB_TRX) the user may not read, so the GRANT instead of their statement."""
    hints = []
    if version >= TRX_SUMMARY_SINCE.get(flavor, (99, 0, 0)):
        if performance_schema and TRX_SUMMARY in refused:
            hints.append(TRX_SUMMARY_GRANT)
        elif performance_schema:
            hints.append(f"run {TRX_SUMMARY_ON} (and add {TRX_SUMMARY_CONFIG} to the server configuration)")
        else:
            hints.append(f"set performance_schema=ON and {TRX_SUMMARY_CONFIG} under {option_group(flavor)} in the "
                         "server's option file and restart it")
    if version >= INNODB_TRX_SINCE.get(flavor, (99, 0, 0)):
        run = f"run {INNODB_TRX_ON} (and {config_hint(INNODB_TRX_ENTRIES)})"
        hints.append(INNODB_TRX_GRANT if INNODB_TRX in refused else run)
    if not hints:
        return ("this server has no counter of autocommit transactions (performance_schema's transaction "
                "summary needs MySQL 5.7.3 or MariaDB 10.5.2, InnoDB's trx counters MySQL 5.6 or MariaDB 10.0)")
    return "to count autocommit transactions too, " + "; or ".join(hints)


def basis(conn: pymysql.Connection, flavor: str, version: tuple[int, int, int],
          performance_schema: bool) -> tuple[str, frozenset[str]]:
    """The best transaction counter this server has on (read once per connection), and the counters the user was
    refused for want of a privilege (SELECT on performance_schema, PROCESS): they may be on, the fix is the GRANT."""
    refused = set()
    if performance_schema and version >= TRX_SUMMARY_SINCE.get(flavor, (99, 0, 0)):
        try:
            if checked_row(conn, INSTRUMENT_SQL) == ("YES", "YES"):
                return TRX_SUMMARY, frozenset()
        except Refused:
            refused.add(TRX_SUMMARY)
    if version >= INNODB_TRX_SINCE.get(flavor, (99, 0, 0)):
        try:
            found = checked_row(conn, innodb_trx_sql(flavor, version))
        except Refused:
            return EXPLICIT, frozenset(refused | {INNODB_TRX})
        if found and int(found[0]) == 3:
            return INNODB_TRX, frozenset(refused)
    return EXPLICIT, frozenset(refused)


def read(conn: pymysql.Connection, flavor: str, version: tuple[int, int, int], basis_name: str) -> dict[str, int]:
    """{tps_trx_summary or tps_innodb: running total} where the basis still counts; {} otherwise. Raises Refused
    where the user lost the privilege since the basis was chosen (a REVOKE under a kept connection)."""
    if basis_name == TRX_SUMMARY:
        found = checked_row(conn, TRX_SUMMARY_SQL)
        return {TRX_SUMMARY: int(found[0])} if found and found[1] == "YES" else {}
    if basis_name == INNODB_TRX:
        found = checked_row(conn, innodb_trx_sql(flavor, version))
        return {INNODB_TRX: int(found[1])} if found and int(found[0]) == 3 else {}
    return {}


# The same counters as one text each, a part of the poll's shared statement (collectors.shared_read).
TRX_SUMMARY_PART = f"(SELECT CONCAT_WS(',', s.COUNT_STAR, i.ENABLED) {TRX_SUMMARY_FROM})"
INNODB_TRX_PART = f"(SELECT CONCAT_WS(',', COUNT(*), SUM(COUNT)) {INNODB_TRX_FROM})"


def part(flavor: str, version: tuple[int, int, int], basis_name: str) -> str | None:
    """The basis's counter as a scalar subquery; None where nothing is read (Com_ counters only)."""
    if basis_name == TRX_SUMMARY:
        return TRX_SUMMARY_PART
    if basis_name == INNODB_TRX:
        return INNODB_TRX_PART.format(enabled=enabled_column(flavor, version))
    return None


def from_part(text, basis_name: str) -> dict[str, int]:
    """What read() gives, from the part's text (None: no such row, as read() finds it)."""
    if isinstance(text, bytes):
        text = text.decode()
    fields = text.split(",") if text else []
    if basis_name == TRX_SUMMARY and len(fields) == 2 and fields[1] == "YES":
        return {TRX_SUMMARY: int(fields[0])}
    if basis_name == INNODB_TRX and len(fields) == 2 and fields[0] == "3":
        return {INNODB_TRX: int(fields[1])}
    return {}


def innodb_trx_sql(flavor: str, version: tuple[int, int, int]) -> str:
    return INNODB_TRX_SQL.format(enabled=enabled_column(flavor, version))


def enabled_column(flavor: str, version: tuple[int, int, int]) -> str:
    # MariaDB 10.5 replaced the STATUS column with ENABLED.
    return "ENABLED" if flavor == "mariadb" and version >= (10, 5, 0) else "STATUS = 'enabled'"


class Refused(Exception):
    """The user lacks a privilege the table needs: not the same as the server not having it."""


DENIED = (1044, 1142, 1227)  # access denied to a database or table, a global privilege (PROCESS) missing
ABSENT = (1054, 1109, 1146)  # no such column or table: a version without it


def checked_row(conn: pymysql.Connection, sql: str) -> tuple | None:
    """The statement's first row, or None where the server has no such table (too old, disabled); raises Refused
    where the user lacks the privilege the statement needs."""
    try:
        with conn.cursor() as cur:
            cur.execute(sql)
            row = cur.fetchone()
    except pymysql.MySQLError as exc:
        code = exc.args[0] if exc.args else None
        if code in DENIED:
            raise Refused(exc.args[-1]) from None
        if code in ABSENT:
            return None
        raise
    return tuple(v.decode() if isinstance(v, bytes) else v for v in row) if row else None


def note(values: dict, refused: Collection[str] = ()) -> str:
    """How this reading's tps is counted: the first counter it has (collectors.delta follows the same order);
    refused: the counters the user may not read (basis())."""
    basis = next(name for name in PREFERENCE if name in values)
    if basis != EXPLICIT:
        return DEFINITIONS[basis]
    return f"{DEFINITIONS[EXPLICIT]}; {any_server_hint(refused)}"


def any_server_hint(refused: Collection[str]) -> str:
    """enable_hint() without the server's version: both counters, or the GRANT where the user was refused one."""
    summary = (TRX_SUMMARY_GRANT if TRX_SUMMARY in refused else "turn on performance_schema's transaction "
               f"instrument ({TRX_SUMMARY_CONFIG} in the server configuration, or at runtime: {TRX_SUMMARY_ON})")
    # "turn on" already leads the sentence unless the first half is a GRANT.
    innodb = f"{'turn on ' if TRX_SUMMARY in refused else ''}InnoDB's counters ({INNODB_TRX_ON})"
    return f"to count autocommit transactions too, {summary} or {INNODB_TRX_GRANT if INNODB_TRX in refused else innodb}"


def refused_of(global_status_health: dict | None) -> frozenset[str]:
    """The counters the latest global_status poll found refused for want of a privilege (from its note)."""
    text = (global_status_health or {}).get("note", "")
    return frozenset(b for b, grant in ((TRX_SUMMARY, TRX_SUMMARY_GRANT), (INNODB_TRX, INNODB_TRX_GRANT))
                     if grant in text)


def definition(global_status_health: dict | None) -> str:
    """The TPS sentence of a server's latest global_status poll (its health entry's note)."""
    note = (global_status_health or {}).get("note", "")
    return note.split("; ")[0] if note.startswith("TPS = ") else UNKNOWN


def basis_of(global_status_health: dict | None) -> str | None:
    """The counter the latest poll's tps came from, as its sentence names it; None when not known."""
    sentence = definition(global_status_health)
    return next((b for b, text in DEFINITIONS.items() if text == sentence), None)


def chart_title(global_status_health: dict | None) -> str:
    """The TPS row's title for the counter that sentence names; a generic one when it is not known."""
    sentence = definition(global_status_health)
    return next((CHART_TITLES[b] for b, text in DEFINITIONS.items() if text == sentence), GENERIC_TITLE)
