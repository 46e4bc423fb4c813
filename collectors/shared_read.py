# SELECT <every due source's scalar parts>: one statement for the poll's every-poll reads.
"""The poll's shared statement: the cheap every-poll reads of several sources in one SELECT.

Each statement the server runs has a fixed cost beside its tables (parsing, opening, the
answer's packets; more on a connection idle since the last poll), and the reads every poll
makes are few: global status and the wait summary go as scalar subqueries of one SELECT
(collectors.source.counted_sql), each source then makes its reading from its own texts
(Source.from_shared). A source alone, or a shared statement that failed (a missing grant on
one of the tables), reads as it always does, so each source still reports its own error.

The parts go as columns, not CONCAT'ed into one text: converting and joining ~30 kB of texts cost
the monitored server 0.04-0.17 ms more a poll (2-11 %) to save our client 0.03-0.05 ms of CPU.
"""

import time
from dataclasses import dataclass, field

import pymysql

from collectors import setup_changes
from collectors.connection import ServerInfo, one_row
from collectors.source import Source


@dataclass(frozen=True)
class Shared:
    """What the shared statement gave each source, and its time (split among them in the health rows)."""

    texts: dict[str, tuple]
    seconds: float
    info: ServerInfo | None = None  # as the parts were chosen
    parts: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def seconds_each(self, name: str) -> float:
        return self.seconds / len(self.texts) if name in self.texts else 0.0

    def texts_of(self, source: Source, info: ServerInfo) -> tuple | None:
        """The source's texts, where its parts are still those of the server as now known (the TPS counter's
        re-check after the statement may have changed them); None: it reads alone."""
        texts = self.texts.get(source.name)
        if texts is None or info is self.info or source.shared is None:
            return texts
        return texts if source.shared(info) == self.parts.get(source.name) else None


NOT_SHARED = Shared({}, 0.0)


def read(conn: pymysql.Connection, info: ServerInfo, sources: list[Source]) -> Shared:
    """Each sharing source's texts; nothing when fewer than two share or the statement failed.

    The setup sums (collectors.setup_changes) ride along in a poll whose sources would read them."""
    parts = {source.name: source.shared(info) for source in sources
             if source.shared is not None and source.unsupported_reason(info) is None}
    parts = {name: exprs for name, exprs in parts.items() if exprs}
    if len(parts) < 2:
        return NOT_SHARED
    setup = setup_changes.shared_parts(conn, info, any(source.setup_every_read for source in sources))
    t0 = time.perf_counter()
    exprs = [e for each in parts.values() for e in each]
    try:
        row = one_row(conn, "SELECT " + ", ".join(exprs + list(setup)))
    except (pymysql.MySQLError, OSError):
        row = None
    if row is None:
        if setup:  # maybe what the user may not read: its askers read it alone, which says so, until it reads
            setup_changes.read_in_shared(conn, None)
        return NOT_SHARED  # each source reads alone: its own error, or the reconnect of a lost connection
    texts, start = {}, 0
    for name, each in parts.items():
        texts[name], start = tuple(row[start:start + len(each)]), start + len(each)
    if setup:
        setup_changes.read_in_shared(conn, tuple(row[start:]))
    return Shared(texts, time.perf_counter() - t0, info, parts)
