"""A against B over repeated runs: the ratio of their mean TPS with a 95 % interval (Fieller, Welch).

Each run counts once, by its average TPS after its warm-up. The ratio is R = mean(B) / mean(A).
Its interval is Fieller's: the values r for which mean(B) - r * mean(A) is not significantly
different from 0, i.e. (b - r a)^2 <= t^2 (vB + r^2 vA) with vA = sA^2 / N and vB = sB^2 / M (the
squared standard errors of the means, each side's own variance: Welch), t the Student quantile
at the Welch-Satterthwaite degrees of freedom of vB + R^2 vA. Solving the quadratic in r gives
the bounds. With one run on a side there is no variance to estimate: no interval. Where A's mean
cannot be told from 0 (a^2 <= t^2 vA) the set is unbounded: no interval either, and why.
"""

import math
from dataclasses import dataclass
from statistics import fmean, variance

LEVEL = 0.95
CF_STEPS, CF_EPS = 300, 1e-14


@dataclass(frozen=True)
class AbRatio:
    ratio: float | None  # mean(B) / mean(A)
    lo: float | None
    hi: float | None
    n: int  # runs in A
    m: int  # runs in B
    mean_a: float | None
    mean_b: float | None
    df: float | None = None  # Welch-Satterthwaite degrees of freedom used
    why: str = ""  # why there is no interval (or no ratio)

    def sentence(self) -> str:
        """'B is 1.23 times A (95 %: 1.10-1.37, N=3, M=3)', or why not."""
        if self.ratio is None:
            return f"No ratio: {self.why} (N={self.n}, M={self.m})."
        if self.lo is None:
            return f"B is {self.ratio:.2f} times A (N={self.n}, M={self.m}): {self.why}."
        between = " to " if self.lo < 0 else "-"  # "-0.51-3.01" reads as a range from -0.51 to -3.01
        return f"B is {self.ratio:.2f} times A (95 %: {self.lo:.2f}{between}{self.hi:.2f}, N={self.n}, M={self.m})."


def told(r: AbRatio) -> str:
    """Whether the runs tell B from A, in words: the interval excludes 1 (B higher or lower, by how much, with the
    interval as changes), or holds it (no difference told apart). "" without an interval."""
    if r.ratio is None or r.lo is None or r.hi is None:
        return ""
    lo, mid, hi = (f"{(x - 1) * 100:+.1f} %" for x in (r.lo, r.ratio, r.hi))
    if r.lo > 1 or r.hi < 1:
        return f"B is {'higher' if r.lo > 1 else 'lower'} than A: {mid} (95 %: {lo} to {hi})."
    return f"No difference told apart: the 95 % interval holds 1 (B against A from {lo} to {hi})."


def incomplete_beta(x: float, a: float, b: float) -> float:
    """The regularized incomplete beta function I_x(a, b), by its continued fraction (modified Lentz)."""
    if x <= 0 or x >= 1:
        return max(0.0, min(1.0, x))
    if x > (a + 1) / (a + b + 2):  # the fraction converges fast only below the mean: use the symmetry
        return 1 - incomplete_beta(1 - x, b, a)
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)) / a
    f, c, d = 1.0, 1.0, 0.0
    for i in range(CF_STEPS * 2 + 1):
        m = i // 2
        if i == 0:
            num = 1.0
        elif i % 2:
            num = -((a + m) * (a + b + m) * x) / ((a + 2 * m) * (a + 2 * m + 1))
        else:
            num = (m * (b - m) * x) / ((a + 2 * m - 1) * (a + 2 * m))
        d = 1 + num * d
        d = 1 / (d if abs(d) > 1e-300 else 1e-300)
        c = 1 + num / (c if abs(c) > 1e-300 else 1e-300)
        f *= c * d
        if abs(1 - c * d) < CF_EPS:
            break
    return front * (f - 1)


def t_cdf(t: float, df: float) -> float:
    tail = 0.5 * incomplete_beta(df / (df + t * t), df / 2, 0.5)
    return 1 - tail if t >= 0 else tail


def t_quantile(p: float, df: float) -> float:
    """The Student t quantile (0.5 < p < 1), by bisection on its CDF."""
    lo, hi = 0.0, 2.0
    while t_cdf(hi, df) < p:
        hi *= 2
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if t_cdf(mid, df) < p else (lo, mid)
        if hi - lo < 1e-12 * max(1.0, hi):
            break
    return (lo + hi) / 2


def welch_df(va: float, vb: float, r: float, n: int, m: int) -> float:
    """Degrees of freedom of vB + r^2 vA (Welch-Satterthwaite)."""
    num = (vb + r * r * va) ** 2
    den = vb * vb / (m - 1) + (r * r * va) ** 2 / (n - 1)
    return num / den if den else float(n + m - 2)


def ab_ratio(a: list[float], b: list[float], level: float = LEVEL) -> AbRatio:
    """mean(B) / mean(A) over the runs' average TPS, with Fieller's interval where it exists."""
    n, m = len(a), len(b)
    mean_a, mean_b = (fmean(a) if a else None), (fmean(b) if b else None)
    if not mean_a or mean_b is None:  # a group without runs, or A's mean 0
        why = "a group has no run with a TPS" if not n or not m else "A's mean TPS is 0"
        return AbRatio(None, None, None, n, m, mean_a, mean_b, why=why)
    ratio = mean_b / mean_a
    if n < 2 or m < 2:
        side = "A" if n < 2 else "B"
        return AbRatio(ratio, None, None, n, m, mean_a, mean_b,
                       why=f"no interval can be given with one run in {side}: repeat it")
    va, vb = variance(a) / n, variance(b) / m
    df = welch_df(va, vb, ratio, n, m)
    bounds = fieller(mean_a, mean_b, va, vb, t_quantile(0.5 + level / 2, df))
    if bounds is None:
        return AbRatio(ratio, None, None, n, m, mean_a, mean_b, df,
                       why="no bounded interval: A's runs spread too widely to tell its mean from 0")
    return AbRatio(ratio, *bounds, n, m, mean_a, mean_b, df)


def fieller(a: float, b: float, va: float, vb: float, t: float) -> tuple[float, float] | None:
    """The r with (b - r a)^2 <= t^2 (vb + r^2 va); None where that set is not one bounded interval."""
    q2 = a * a - t * t * va
    if q2 <= 0:
        return None
    disc = t * t * (a * a * vb + b * b * va) - t ** 4 * va * vb
    if va == 0 and vb == 0:
        return b / a, b / a
    root = math.sqrt(max(disc, 0.0))
    return (a * b - root) / q2, (a * b + root) / q2
