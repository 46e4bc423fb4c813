# SELECT the sums of performance_schema.setup_instruments and setup_consumers (and InnoDB's enabled counters).
"""Whether a server's instrumentation changed, so that the sources re-reading it once a minute read it only then.

The TPS counter's choice (collectors.transactions), the wait instruments' gauges (sources.wait_instruments)
and the statement digests' setup (sources.statements) each read performance_schema.setup_instruments (~1,200
rows, no index on MariaDB) once a minute: 0.36 ms of the monitored server's time per 10 s poll together, a
tenth of a poll (docs/benchmarks.md). Those switches move only when an administrator turns something on or
off. One statement of sums a minute (0.69 ms) tells that, and each source reads again only after a change,
or FULL_EVERY_S at the latest, so a change still shows within a minute. Where the poll makes a shared
statement (collectors.shared_read), the sums ride in it as parts, in the polls whose sources would read them:
the statement's own cost (parsing, opening, the answer) is not paid a second time.
"""

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

import pymysql

from collectors import transactions, weakened
from collectors.connection import ServerInfo

T = TypeVar("T")

FULL_EVERY_S = 600  # a change the sums cannot see (one instrument on, another off) shows within this
# COUNT(NULLIF(...)) counts the YES rows as SUM(ENABLED = 'YES') did, in integers, not decimals: cheaper to the server.
SWITCHES_PARTS = (
    "(SELECT CONCAT_WS(',', COUNT(*), COUNT(NULLIF(ENABLED, 'NO')), COUNT(NULLIF(TIMED, 'NO')))"
    " FROM performance_schema.setup_instruments)",
    "(SELECT GROUP_CONCAT(NAME, '=', ENABLED ORDER BY NAME) FROM performance_schema.setup_consumers)",
)
# InnoDB's trx_* counters, which the TPS counter's choice reads too (SET GLOBAL turns them on, not performance_schema).
INNODB_PART = "(SELECT COUNT(*) FROM information_schema.INNODB_METRICS WHERE {enabled})"
SETUP_TABLES_SINCE = {"mysql": (5, 5, 3), "mariadb": (5, 5, 0)}  # performance_schema's setup tables
# The sums ride in the poll's shared statement (collectors.shared_read) when the poll's sources would read them
# again: ASKED_EVERY_S after the last read (pool.BASIS_RECHECK_S, wait_instruments.INSTRUMENTS_EVERY_S), less
# EARLY_S so that a poll a little early still brings them, and whenever a source asks them of every read it makes.
ASKED_EVERY_S = 60
EARLY_S = 5
# connection -> (when read, in which of its polls, the switches; None where they cannot be read).
SEEN: dict[tuple, tuple[float, int, str | None]] = {}
POLLS: dict[tuple, int] = {}  # connection -> polls begun on it (poll_started)
MAX_SEEN = 10_000


def connection_key(conn: pymysql.Connection) -> tuple:
    """One connection of one server (a reconnect is a new one, whose server may have restarted)."""
    return getattr(conn, "host", ""), getattr(conn, "port", 0), conn.thread_id()


def switches_parts(info: ServerInfo) -> tuple[str, ...]:
    """The sums as scalar subqueries."""
    if info.version_tuple < transactions.INNODB_TRX_SINCE.get(info.flavor, (99, 0, 0)):
        return SWITCHES_PARTS
    return (*SWITCHES_PARTS, INNODB_PART.format(enabled=transactions.enabled_column(info.flavor, info.version_tuple)))


def switches_sql(info: ServerInfo) -> str:
    return "SELECT " + ", ".join(switches_parts(info))


def read_switches(conn: pymysql.Connection, info: ServerInfo) -> str | None:
    """The sums as one text; None where the user may not read them (each source then reads as it always did)."""
    rows = weakened.answer(conn, switches_sql(info))
    return switches_text(rows[0]) if rows else None


def switches_text(values: tuple) -> str:
    return "|".join(str(v.decode() if isinstance(v, bytes) else v) for v in values)


def shared_parts(conn: pymysql.Connection, info: ServerInfo, every_read: bool) -> tuple[str, ...]:
    """The sums' parts for this poll's shared statement, where its sources would read them (every_read: one of
    them asks them of each read it makes); none where they could not be read on this connection."""
    found = SEEN.get(connection_key(conn))
    if info.version_tuple < SETUP_TABLES_SINCE.get(info.flavor, (99, 0, 0)) or (found and found[2] is None):
        return ()
    if found is None or every_read or time.monotonic() - found[0] >= ASKED_EVERY_S - EARLY_S:
        return switches_parts(info)
    return ()


def read_in_shared(conn: pymysql.Connection, values: tuple | None) -> None:
    """The sums as this poll's shared statement read them, whoever asks in this poll takes these; None where
    the statement failed with them."""
    remember(connection_key(conn), None if values is None else switches_text(values))


def poll_started(conn: pymysql.Connection) -> None:
    """A poll begins on this connection: switches read in an earlier one are not this poll's (this_poll)."""
    key = connection_key(conn)
    if len(POLLS) >= MAX_SEEN:
        POLLS.clear()
    POLLS[key] = POLLS.get(key, 0) + 1


def switches(conn: pymysql.Connection, info: ServerInfo, every_s: float, this_poll: bool = False) -> str | None:
    """The switches, read at most once every_s per connection whoever asks; this_poll: as read in this poll."""
    key = connection_key(conn)
    found, poll = SEEN.get(key), POLLS.get(key, 0)
    if found is None or (found[1] != poll if this_poll else time.monotonic() - found[0] >= every_s):
        return remember(key, read_switches(conn, info))
    return found[2]


def remember(key: tuple, text: str | None) -> str | None:
    """The switches as read now on this connection, in its current poll."""
    if len(SEEN) >= MAX_SEEN:
        SEEN.clear()
    SEEN[key] = (time.monotonic(), POLLS.get(key, 0), text)
    return text


@dataclass
class SetupWatch:
    """One source's last read of the setup on one connection: when, and the switches it was read under."""

    at: float = float("-inf")
    seen: str | None = None
    now: str | None = None  # as due() last read them: what mark() keeps

    def due(self, conn: pymysql.Connection, info: ServerInfo, every_s: float, this_poll: bool = False) -> bool:
        """every_s after the last read: read again if the switches moved, cannot be read, or FULL_EVERY_S passed;
        this_poll: the switches as read in this poll (by this source or another), not up to every_s ago.

        The switches are read before the source's own read, so a change between the two is seen next time."""
        age = time.monotonic() - self.at
        if age < every_s:
            return False
        try:
            self.now = switches(conn, info, every_s, this_poll)
        except pymysql.MySQLError:
            self.now = None  # the source's own read meets the same trouble and says it, as it always did
        return self.now is None or self.now != self.seen or age >= FULL_EVERY_S

    def mark(self) -> None:
        """The source has just read the setup."""
        self.at, self.seen = time.monotonic(), self.now


class KeptSetup(Generic[T]):
    """A source's read of the setup, kept per connection and made again when its SetupWatch is due."""

    def __init__(self) -> None:
        self._kept: dict[tuple, tuple[SetupWatch, T]] = {}

    def get(self, conn: pymysql.Connection, info: ServerInfo, every_s: float, read: Callable[[], T],
            this_poll: bool = False) -> T:
        key = connection_key(conn)
        found = self._kept.get(key)
        watch = found[0] if found else SetupWatch()
        if not watch.due(conn, info, every_s, this_poll) and found:  # a new watch is always due
            return found[1]
        value = read()
        watch.mark()
        if len(self._kept) >= MAX_SEEN:
            self._kept.clear()
        self._kept[key] = (watch, value)
        return value
