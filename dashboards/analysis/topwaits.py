"""Top waits over an interval, from exact counter totals (the seeds' ORDER BY SUM_TIMER_WAIT DESC)."""

from collections.abc import Mapping
from dataclasses import dataclass

TIME_PREFIX = "wait.time_ps:"
COUNT_PREFIX = "wait.count:"


# Condition waits are threads asleep until signalled: on MariaDB mostly background threads
# idling (mysys COND_timer, Aria's SERVICE_THREAD_CONTROL::COND_control), time that does not
# limit TPS but would top every ranking. Rankings leave them out unless asked (?cond=1).
CONDITION_PREFIX = "wait/synch/cond/"
CONDITION_PARAM = "cond"


def is_condition(event: str) -> bool:
    return event.startswith(CONDITION_PREFIX)


def include_conditions(get) -> bool:
    """The page's toggle "include condition waits", kept in the URL as cond=1 (default: left out)."""
    return get.get(CONDITION_PARAM) == "1"


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
class WaitDiff:
    event: str
    a: WaitRow | None
    b: WaitRow | None

    @property
    def time_diff_ps(self) -> int:
        return (self.b.time_ps if self.b else 0) - (self.a.time_ps if self.a else 0)

    @property
    def ratio(self) -> float | None:
        """b / a: how many times more (or less) time this event waited after the change."""
        if not self.a or not self.a.time_ps or not self.b:
            return None
        return self.b.time_ps / self.a.time_ps


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
    """What a ranking left out: the condition waits, how many and how long."""

    events: int
    time_ps: int


def without_conditions(rows: list[WaitRow]) -> tuple[list[WaitRow], Hidden]:
    """The rows minus condition waits, shares taken again over the waits shown."""
    kept = [r for r in rows if not is_condition(r.event)]
    hidden = [r for r in rows if is_condition(r.event)]
    grand = sum(r.time_ps for r in kept)
    kept = [WaitRow(r.event, r.count, r.time_ps, r.time_ps / grand if grand else 0.0) for r in kept]
    return kept, Hidden(len(hidden), sum(r.time_ps for r in hidden))


def diff_rows(a: list[WaitRow], b: list[WaitRow], limit: int | None = None) -> list[WaitDiff]:
    """Events of either interval, ordered by the larger of their two times."""
    by_a, by_b = {r.event: r for r in a}, {r.event: r for r in b}
    events = set(by_a) | set(by_b)
    rows = [WaitDiff(e, by_a.get(e), by_b.get(e)) for e in events]
    rows.sort(key=lambda d: (-max(d.a.time_ps if d.a else 0, d.b.time_ps if d.b else 0), d.event))
    return rows[:limit] if limit else rows


def human_ps(ps: float | None) -> str:
    """Picoseconds as the unit a person reads at a glance."""
    if ps is None:
        return ""
    for unit, size in (("s", 1e12), ("ms", 1e9), ("µs", 1e6), ("ns", 1e3)):
        if abs(ps) >= size:
            return f"{ps / size:,.2f} {unit}"
    return f"{ps:,.0f} ps"
