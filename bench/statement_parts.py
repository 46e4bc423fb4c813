# SELECT <the poll's shared statement>, then the same less one part at a time, in turns: each part's server time.
"""What each part of our poll's shared statement costs the monitored server.

A part read alone also pays what every statement pays (parsing, the answer's packets, a
woken server thread), which the shared statement pays once; so a part's cost is the whole
statement's server time less that of the same statement without it (a part of a slower
source: with it, less without). The variants run in turns, one each per round with a pause
between, and the medians over the rounds are compared, so that drift on the machine hits
every variant alike. bench/peer_cost.py prints the table beside the peer's cost, with the
ratio each part's absence would give.
"""

import re
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

import pymysql

from collectors.connection import ServerInfo
from collectors.source import Source, query

PAUSE = 0.3  # seconds between statements, as between polls the connection is idle before each
SETTLE = 0.02  # the statement's time is counted when it ends on the server, a little after its answer


@dataclass(frozen=True)
class Part:
    """One scalar subquery of the shared statement."""

    source: str
    table: str  # what it reads, as the table's label
    sql: str
    every: int  # seconds between reads of its source on this server


def parts(info: ServerInfo, sources: list[Source], interval: int, quiet: frozenset[str] = frozenset()) -> list[Part]:
    """Every part the sources put in the shared statement on this server, in the poll's order; quiet: the sources
    whose last reading found nothing of their kind, read at their quiet interval (replication on no replica)."""
    found = []
    for source in sources:
        if source.shared is None or source.unsupported_reason(info):
            continue
        every = source.interval_for(interval, info.flavor, info.version_tuple)
        if source.name in quiet and source.quiet_interval:
            every = max(every, source.quiet_interval)
        found += [Part(source.name, table_of(sql), sql, every) for sql in source.shared(info)]
    return found


def table_of(sql: str) -> str:
    found = re.search(r"\bFROM\s+([\w.]+)", sql)
    return found.group(1) if found else "(no table)"


def costs(conn: pymysql.Connection, server_ps: Callable[[], int], found: list[Part], interval: int,
          rounds: int) -> tuple[float, dict[Part, float]]:
    """(ms of the every-poll statement, {part: its ms in that statement, per read of it})."""
    every_poll = [p for p in found if p.every <= interval]
    variants: dict[Part | None, list[Part]] = {None: every_poll}
    variants |= {p: [q for q in every_poll if q is not p] for p in every_poll}
    variants |= {p: every_poll + [p] for p in found if p.every > interval}
    times: dict[Part | None, list[float]] = {key: [] for key in variants}
    for _ in range(rounds):
        for key, chosen in variants.items():
            time.sleep(PAUSE)
            before = server_ps()
            query(conn, "SELECT " + ", ".join(p.sql for p in chosen))
            time.sleep(SETTLE)
            times[key].append((server_ps() - before) / 1e9)
    median = {key: statistics.median(ms) for key, ms in times.items()}
    whole = median.pop(None)
    return whole, {p: (ms - whole if p.every > interval else whole - ms) for p, ms in median.items()}


def print_table(whole: float, each: dict[Part, float], interval: int, ours_ms: float, peer_ms: float,
                rounds: int) -> None:
    """Each part's cost per read and per poll, and the ratio to the peer without it."""
    print(f"\neach part of our shared statement: the statement less that part (median of {rounds} rounds);"
          f" the every-poll statement {whole:.3f} ms; ratio without it = (ours - its ms/poll) / peer,"
          f" from the windows' medians (ours {ours_ms:.3f} ms, peer {peer_ms:.3f} ms):")
    print(f"  {'source':<16} {'reads':<62} {'every':>6} {'ms/read':>8} {'ms/poll':>8} {'ratio without it':>17}")
    for part, ms in each.items():
        per_poll = ms * interval / part.every
        print(f"  {part.source:<16} {part.table:<62} {part.every:>5}s {ms:>8.3f} {per_poll:>8.3f}"
              f" {(ours_ms - per_poll) / peer_ms:>17.2f}")
