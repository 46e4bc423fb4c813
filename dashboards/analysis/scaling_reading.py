"""A sweep read as an engineer would: efficiency per level, the scalability law's fit, where the bottleneck moves.

Efficiency at a level is its TPS per thread over the first level's TPS per thread (1.0: each
added thread did as much as the first). The bottleneck moves where the wait whose time per
transaction grew most from one level to the next changes: the waits are ranked per step by
that growth (µs per transaction added), condition waits and the client's own time left out.
"""

from dataclasses import dataclass

from dashboards.analysis.scalability import Curve, Level, measured
from dashboards.analysis.topwaits import is_client, is_condition
from dashboards.analysis.usl import MIN_LEVELS, UslFit, fit_usl

PS_PER_US = 1e6
GROWERS = 3  # waits named per step
MIN_GROWTH_SHARE = 0.01  # a wait grew when it added more than this share of the upper level's waits per transaction


def efficiency(levels: list[Level]) -> list[float | None]:
    """Per level: (TPS / threads) / (the first level's TPS / its threads)."""
    found = measured(levels)
    first = found[0] if found else None
    base = first.rate / first.concurrency if first and first.rate else None
    return [lv.rate / lv.concurrency / base if base and lv.rate is not None else None for lv in levels]


def curve_fit(curve: Curve) -> UslFit | None:
    """The law fitted to the TPS the curve reads at each level (the load's own where it says so)."""
    measured = [lv for lv in curve.levels if lv.rate is not None]
    return fit_usl([lv.concurrency for lv in measured], [lv.rate for lv in measured])


@dataclass(frozen=True)
class Growth:
    event: str
    before_us: float  # µs waited per transaction at the lower level
    after_us: float

    @property
    def added_us(self) -> float:
        return self.after_us - self.before_us


@dataclass(frozen=True)
class Step:
    lower: Level
    upper: Level
    growers: list[Growth]  # most µs per transaction added first

    @property
    def blanks(self) -> range:
        """The empty cells after the growers, so each step's row fills the table's columns."""
        return range(max(0, GROWERS - max(1, len(self.growers))))

    @property
    def top(self) -> Growth | None:
        return self.growers[0] if self.growers else None


def ranked_wait(event: str) -> bool:
    """Contention only: condition waits, the client's time and idle sessions are shown apart, not ranked."""
    return not is_condition(event) and not is_client(event)


def per_trx_us(level: Level, event: str) -> float:
    value = level.wait_per_trx(event)
    return 0.0 if value is None else value / PS_PER_US


def step(lower: Level, upper: Level, n: int = GROWERS) -> Step:
    events = {e for e in (*lower.waits, *upper.waits) if ranked_wait(e)}
    growth = [Growth(e, per_trx_us(lower, e), per_trx_us(upper, e)) for e in events]
    # A wait must add a share of the upper level's waits per transaction to have grown: on a sysbench sweep whose
    # every wait fell per transaction, fil_system_mutex's +0.004 µs (of 470) was named the new bottleneck.
    least = MIN_GROWTH_SHARE * sum(g.after_us for g in growth)
    grew = sorted((g for g in growth if g.added_us > least), key=lambda g: (-g.added_us, g.event))
    return Step(lower, upper, grew[:n])


def bottleneck_steps(levels: list[Level], n: int = GROWERS) -> list[Step]:
    """Per step up in threads between levels with a TPS (one without has no waits per transaction: every wait
    would grow from it), the waits whose time per transaction grew most."""
    found = measured(levels)
    return [step(lower, upper, n) for lower, upper in zip(found, found[1:], strict=False)]


def waits_unread(levels: list[Level]) -> bool:
    """No level with a TPS holds a wait summary poll (performance_schema OFF, MariaDB's default, or not readable):
    every wait per transaction is unknown, not 0, so no step can be said to have had no wait grow."""
    found = measured(levels)
    return bool(found) and not any(lv.waits for lv in found)


def moves(steps: list[Step]) -> list[tuple[Step, str]]:
    """The steps where the top grower changed from the last step before with one: (step, the previous top event).
    A step where no wait grew between two others is no end to the comparison: index_tree_rw_lock at 1 -> 2, none
    at 2 -> 4, lock_mutex at 4 -> 8 is a move."""
    out = []
    before: Growth | None = None
    for after in steps:
        if after.top is None:
            continue
        if before is not None and before.event != after.top.event:
            out.append((after, before.event))
        before = after.top
    return out


def lead(steps: list[Step]) -> Growth | None:
    """The top grower of the first step where a wait grew (the sentence's, where the bottleneck does not move)."""
    return next((st.top for st in steps if st.top), None)


@dataclass(frozen=True)
class Upturn:
    """Two steps up in a row where the upper gained more per added thread than the lower: the law with σ and κ at
    0 or more only bends down, so it misses such a curve whatever its fit."""

    low: Level
    mid: Level
    high: Level
    before: float  # the lower step's gain per added thread, a share of the first level's TPS per thread
    after: float


def upturn(levels: list[Level], gained: list[float | None]) -> Upturn | None:
    """The first upturn of a curve (gained: scalability.gains() of its levels), None where every step gained less."""
    for i in range(2, len(levels)):
        before, after = gained[i - 1], gained[i]
        if before is not None and after is not None and after > before:
            return Upturn(levels[i - 2], levels[i - 1], levels[i], before, after)
    return None


def faster_than_linear(levels: list[Level], efficiencies: list[float | None]) -> tuple[Level, float] | None:
    """The first level whose TPS per thread was above the first level's (efficiency over 1), with it."""
    return next(((lv, e) for lv, e in zip(levels, efficiencies, strict=True) if e is not None and e > 1), None)


@dataclass(frozen=True)
class Outlier:
    """The level whose leaving out raises the law's R² most, and the R² of the law fitted to the other levels."""

    level: Level
    r2: float
    others: int  # levels the law was fitted to without it

    @property
    def r2_text(self) -> str:
        return f"{self.r2:.3f}"


def breaking_level(curve: Curve, fit: UslFit | None) -> Outlier | None:
    """Which level breaks the fit, found as an engineer would: refit without each level in turn and keep the one
    whose leaving out fits best. None at 3 levels (two left fit nothing) or where no level's leaving out helps."""
    if fit is None or fit.levels <= MIN_LEVELS:
        return None
    found = [lv for lv in curve.levels if lv.rate is not None]
    best = None
    for left in found:
        rest = [lv for lv in found if lv is not left]
        other = fit_usl([lv.concurrency for lv in rest], [lv.rate for lv in rest])
        if other is not None and (best is None or other.r2 > best.r2):
            best = Outlier(left, other.r2, other.levels)
    return best if best is not None and best.r2 > fit.r2 else None
