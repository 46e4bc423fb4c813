"""Top waits over an interval, from exact counter totals (the seeds' ORDER BY SUM_TIMER_WAIT DESC)."""

from collections.abc import Mapping
from dataclasses import dataclass

TIME_PREFIX = "wait.time_ps:"
COUNT_PREFIX = "wait.count:"


# Condition waits are threads asleep until signalled: on MariaDB mostly background threads
# idling (mysys COND_timer, Aria's SERVICE_THREAD_CONTROL::COND_control), time that does not
# limit TPS but would top every ranking. Rankings leave them out unless asked (?cond=1: query_params),
# except LOCK_WAITS: sessions blocked on a lock another session holds, which is what makes TPS dip.
CONDITION_PREFIX = "wait/synch/cond/"
CONDITION_PARAM = "cond"

# Condition waits of sessions blocked by another session (docs/metrics.md, "Condition waits"): ranked as waits.
# SLEEP() (Item_func_sleep::cond) is left out: the application asked to wait, like client time.
LOCK_WAITS = {
    CONDITION_PREFIX + "sql/MDL_context::COND_wait_status":
        "metadata locks: FLUSH TABLES WITH READ LOCK, DDL against DML, LOCK TABLES, GET_LOCK()",
    CONDITION_PREFIX + "sql/User_level_lock::cond": "GET_LOCK() before user locks were metadata locks",
    CONDITION_PREFIX + "sql/COND_global_read_lock": "the global read lock before it was a metadata lock",
    CONDITION_PREFIX + "sql/COND_refresh": "FLUSH TABLES waiting for tables in use (MySQL 5.5 and older)",
    CONDITION_PREFIX + "sql/TABLE_SHARE::tdc.COND_release": "Waiting for table flush (MariaDB)",
    CONDITION_PREFIX + "sql/Query_cache::COND_cache_status_changed": "Waiting for query cache lock",
    CONDITION_PREFIX + "sql/wait_for_commit::COND_wait_commit":
        "a commit waiting for an earlier transaction to commit first (MariaDB's commit order)",
}


def is_lock_wait(event: str) -> bool:
    return event in LOCK_WAITS


def is_condition(event: str) -> bool:
    """A condition wait rankings leave out unless asked: every wait/synch/cond/ event but the LOCK_WAITS."""
    return event.startswith(CONDITION_PREFIX) and event not in LOCK_WAITS


# Client time: the server waiting for its client's next statement (the socket read between statements),
# and idle. It is the application's think time, not contention: shown apart, ranked only with ?client=1.
CLIENT_EVENTS = frozenset({"wait/io/socket/sql/client_connection", "idle"})
CLIENT_PARAM = "client"


def is_client(event: str) -> bool:
    return event in CLIENT_EVENTS


@dataclass(frozen=True)
class WaitRow:
    event: str
    count: int
    time_ps: int
    share: float  # of the total time waited over the interval, 0..1

    @property
    def avg_ps(self) -> float | None:
        return self.time_ps / self.count if self.count else None


@dataclass(frozen=True)
class Interval:
    """What a wait time is divided by: the interval's length and the transactions done in it."""

    seconds: float  # covered by its polls; 0 when no poll lies in it
    transactions: int | float | None = None
    # Each wait's ps per transaction over the seconds the wait summary and TPS both cover (per_transaction's
    # event_ps); None: its time over transactions.
    per_trx: Mapping[str, float] | None = None
    wait_seconds: float | None = None  # the wait summary's own polls cover: what its rates are over; None: seconds

    def of(self, row: "WaitRow | None", event: str) -> float | None:
        """The event's ps waited per transaction."""
        if self.per_trx is not None:
            return self.per_trx.get(event, 0.0) if self.per_trx else None
        return _per(row.time_ps if row else 0, self.transactions)

    @property
    def per(self) -> float:
        """What its totals are divided by for a rate: with no poll there is no total either."""
        return self.seconds or 1.0

    @property
    def wait_per(self) -> float:
        """What its wait times are divided by for a rate: the seconds the wait summary's polls cover."""
        return self.per if self.wait_seconds is None else self.wait_seconds or 1.0

    @property
    def waits_apart(self) -> bool:
        """Whether the wait summary's polls cover a second more, or less, than TPS's."""
        return self.wait_seconds is not None and abs(self.wait_seconds - self.seconds) >= 1.0


def _per(value: float | None, by: float | None) -> float | None:
    return None if value is None or not by else value / by


def _ratio(b: float | None, a: float | None) -> float | None:
    return None if a is None or b is None or not a else b / a


@dataclass(frozen=True)
class WaitDiff:
    """One event over two intervals of any lengths: compared per second and per transaction."""

    event: str
    a: WaitRow | None
    b: WaitRow | None
    span_a: Interval = Interval(1.0)
    span_b: Interval = Interval(1.0)

    @property
    def a_rate(self) -> float:
        """Picoseconds waited per second of interval A (1e12 = one second waited per second)."""
        return (self.a.time_ps if self.a else 0) / self.span_a.wait_per

    @property
    def b_rate(self) -> float:
        return (self.b.time_ps if self.b else 0) / self.span_b.wait_per

    @property
    def rate_diff(self) -> float:
        return self.b_rate - self.a_rate

    @property
    def ratio(self) -> float | None:
        """B's rate / A's rate: how many times more time per second this event waited after the change."""
        return _ratio(self.b_rate, self.a_rate) if self.b else None

    @property
    def a_per_trx(self) -> float | None:
        """Picoseconds waited per transaction in A."""
        return self.span_a.of(self.a, self.event)

    @property
    def b_per_trx(self) -> float | None:
        return self.span_b.of(self.b, self.event)

    @property
    def per_trx_ratio(self) -> float | None:
        return _ratio(self.b_per_trx, self.a_per_trx) if self.b else None


def wait_rows(totals: Mapping[str, int | float], limit: int | None = None) -> list[WaitRow]:
    """Rows by total time waited, biggest first; picosecond sums stay Python ints."""
    times = {k[len(TIME_PREFIX):]: int(v) for k, v in totals.items() if k.startswith(TIME_PREFIX)}
    grand = sum(times.values())
    rows = [
        WaitRow(event, int(totals.get(COUNT_PREFIX + event, 0)), ps, ps / grand if grand else 0.0)
        for event, ps in times.items() if ps > 0
    ]
    rows.sort(key=lambda r: (-r.time_ps, r.event))
    return rows[:limit] if limit else rows


@dataclass(frozen=True)
class Hidden:
    """What a ranking left out: the condition waits (how many and how long) and the client time."""

    events: int
    time_ps: int
    client_ps: int = 0  # CLIENT_EVENTS' time, shown apart
    client_count: int = 0


def shown(rows: list[WaitRow], conditions: bool = False, client: bool = False) -> tuple[list[WaitRow], Hidden]:
    """The rows a ranking shows, shares taken again over them: condition waits and client time
    left out unless asked for, and what was left out."""
    conds = [] if conditions else [r for r in rows if is_condition(r.event)]
    apart = [] if client else [r for r in rows if is_client(r.event)]
    out = {r.event for r in conds + apart}
    kept = [r for r in rows if r.event not in out]
    grand = sum(r.time_ps for r in kept)
    kept = [WaitRow(r.event, r.count, r.time_ps, r.time_ps / grand if grand else 0.0) for r in kept]
    return kept, Hidden(len(conds), sum(r.time_ps for r in conds), sum(r.time_ps for r in apart),
                        sum(r.count for r in apart))


def without_conditions(rows: list[WaitRow]) -> tuple[list[WaitRow], Hidden]:
    """The rows minus condition waits and client time: the default ranking."""
    return shown(rows)


def diff_rows(a: list[WaitRow], b: list[WaitRow], limit: int | None = None,
              span_a: Interval = Interval(1.0), span_b: Interval = Interval(1.0)) -> list[WaitDiff]:
    """Events of either interval, ordered by the larger of their two rates (time waited per second)."""
    by_a, by_b = {r.event: r for r in a}, {r.event: r for r in b}
    events = set(by_a) | set(by_b)
    rows = [WaitDiff(e, by_a.get(e), by_b.get(e), span_a, span_b) for e in events]
    rows.sort(key=lambda d: (-max(d.a_rate, d.b_rate), d.event))
    return rows[:limit] if limit else rows


def human_ps(ps: float | None) -> str:
    """Picoseconds as the unit a person reads at a glance."""
    if ps is None:
        return ""
    if ps == 0:
        return "0"  # "0 ps" read as a measured trace of time, where nothing was waited
    for unit, size in (("s", 1e12), ("ms", 1e9), ("µs", 1e6), ("ns", 1e3)):
        if abs(ps) >= size:
            return f"{ps / size:,.2f} {unit}"
    return f"{ps:,.0f} ps"
