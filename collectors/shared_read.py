# SELECT <every due source's scalar parts>: one statement for the poll's every-poll reads.
"""The poll's shared statement: the cheap every-poll reads of several sources in one SELECT.

Each statement the server runs has a fixed cost beside its tables (parsing, opening, the
answer's packets; more on a connection idle since the last poll), and the reads every poll
makes are few: global status and the wait summary go as scalar subqueries of one SELECT
(collectors.source.counted_sql), each source then makes its reading from its own texts
(Source.from_shared). A source alone, or a shared statement that failed (a missing grant on
one of the tables), reads as it always does, so each source still reports its own error.
"""

import time
from dataclasses import dataclass

import pymysql

from collectors.connection import ServerInfo
from collectors.pool import is_connection_error
from collectors.source import Source, query

PART_SEP = "\x1e"  # between the parts' texts in the joined form (the record separator: in no status or name)
REFUSED: set[tuple[str, str]] = set()  # (flavor, version) of servers that refused the joined form
# Errors that say the server cannot run the joined form at all: syntax, a mix of collations, no utf8mb4.
CANNOT_JOIN = frozenset((1064, 1115, 1267, 1270, 1271))


@dataclass(frozen=True)
class Shared:
    """What the shared statement gave each source, and its time (split among them in the health rows)."""

    texts: dict[str, tuple]
    seconds: float

    def seconds_each(self, name: str) -> float:
        return self.seconds / len(self.texts) if name in self.texts else 0.0


NOT_SHARED = Shared({}, 0.0)


def read(conn: pymysql.Connection, info: ServerInfo, sources: list[Source]) -> Shared:
    """Each sharing source's texts; nothing when fewer than two share or the statement failed."""
    parts = {source.name: source.shared(info) for source in sources
             if source.shared is not None and source.unsupported_reason(info) is None}
    parts = {name: exprs for name, exprs in parts.items() if exprs}
    if len(parts) < 2:
        return NOT_SHARED
    t0 = time.perf_counter()
    exprs = [e for each in parts.values() for e in each]
    try:
        row = joined(conn, info, exprs) or query(conn, "SELECT " + ", ".join(exprs))[0]
    except (pymysql.MySQLError, OSError):
        return NOT_SHARED  # each source reads alone: its own error, or the reconnect of a lost connection
    texts, start = {}, 0
    for name, each in parts.items():
        texts[name], start = tuple(row[start:start + len(each)]), start + len(each)
    return Shared(texts, time.perf_counter() - t0)


def joined(conn: pymysql.Connection, info: ServerInfo, exprs: list[str]) -> list | None:
    """The parts' texts read as one column (a NULL part as ""); None: read them as columns.

    Each column of an answer costs the client a field description to parse, and the parts' texts one
    string each: as one text, 0.19 -> 0.14 ms of CPU for a MariaDB 10.11 poll's six parts. None where a
    text holds the separator (the count tells) or where the server refused the statement (kept per
    version, so that server is not sent it again).
    """
    key = (info.flavor, info.version)
    if key in REFUSED:
        return None
    try:
        text = query(conn, joined_sql(exprs))[0][0]
    except pymysql.MySQLError as exc:
        if is_connection_error(exc):
            raise
        if exc.args and exc.args[0] in CANNOT_JOIN:
            REFUSED.add(key)
        return None  # this poll reads them as columns (a timeout, a missing grant: that statement says)
    if isinstance(text, bytes):
        text = text.decode(errors="replace")
    found = text.split(PART_SEP) if text is not None else []
    return found if len(found) == len(exprs) else None


def joined_sql(exprs: list[str]) -> str:
    """SELECT CONCAT(part, SEP, part...), each part in one character set (no mix of collations to refuse)."""
    texts = (f"COALESCE(CONVERT(({e}) USING utf8mb4), '')" for e in exprs)
    return "SELECT CONCAT(" + f", '{PART_SEP}', ".join(texts) + ")"
