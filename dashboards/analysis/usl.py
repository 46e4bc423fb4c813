"""The Universal Scalability Law (Gunther) fitted to a curve's throughput against concurrency.

    X(N) = lambda * N / (1 + sigma * (N - 1) + kappa * N * (N - 1))

lambda is the throughput of one client without contention, sigma the share of the work that
is serialised (contention: queueing on a lock), kappa the cost of keeping N clients coherent
with each other (crosstalk: throughput falls past a peak). The fit is least squares on X:
for given (sigma, kappa) the best lambda is linear (a closed form), so the search is over
the two shape parameters, a grid over their plausible range then Gauss-Newton steps from the
best grid point, both kept >= 0. Pure numpy.
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

MIN_LEVELS = 3  # three parameters
SIGMAS = np.concatenate([[0.0], np.logspace(-4, 1, 61)])
KAPPAS = np.concatenate([[0.0], np.logspace(-7, 0, 71)])
STEPS = 60
STEP_FLOOR = 1e-12


@dataclass(frozen=True)
class UslFit:
    lam: float  # TPS of one client without contention
    sigma: float  # contention
    kappa: float  # coherency (crosstalk)
    r2: float  # 1 - residual / total sum of squares of the TPS
    levels: int  # points fitted
    lowest: float = 1.0  # the smallest and largest concurrency fitted
    highest: float = 1.0

    def predict(self, n: float) -> float:
        return float(throughput(np.array([n], dtype=float), self.lam, self.sigma, self.kappa)[0])

    @property
    def peak(self) -> float | None:
        """The concurrency of the highest throughput, sqrt((1 - sigma) / kappa); None without a peak."""
        if self.kappa <= 0 or self.sigma >= 1:
            return None
        return math.sqrt((1 - self.sigma) / self.kappa)

    @property
    def r2_text(self) -> str:
        """R² as the legend and the sentence both print it."""
        return f"{self.r2:.3f}"

    @property
    def through_points(self) -> bool:
        """Whether the law passes through the points, as it does through any 3 it can follow: it cannot where TPS
        rose faster than linearly or bent up (sigma or kappa would be below 0), and then misses even 3 (R² below
        1.000)."""
        return self.r2_text == "1.000"

    @property
    def extrapolated(self) -> bool:
        """The peak lies outside the levels measured: the law's guess, not a measured turn."""
        return self.peak is not None and not self.lowest <= self.peak <= self.highest

    @property
    def below_levels(self) -> bool:
        """The peak lies below the fewest threads swept: throughput already fell at the first step up, so there is
        no turn further up to sweep past (a falling sweep's peak at 0.7 threads)."""
        return self.peak is not None and self.peak < self.lowest

    @property
    def falls(self) -> bool:
        """No peak because the law falls from one thread on: dX/dN has the sign of 1 - sigma - kappa N^2, never
        above 0 with sigma >= 1 (flat only at sigma = 1 and kappa = 0). Its throughput never grows past one
        thread's: no peak is "grows with every thread", as the page once said of 1,000, 769, 656, 559 TPS."""
        return self.sigma > 1 or (self.sigma >= 1 and self.kappa > 0)

    @property
    def ceiling(self) -> float | None:
        """Without crosstalk (kappa 0) the throughput approaches lambda / sigma and never turns down."""
        return self.lam / self.sigma if self.kappa <= 0 and self.sigma > 0 else None

    @property
    def peak_tps(self) -> float | None:
        return None if self.peak is None else self.predict(self.peak)


def throughput(n: np.ndarray, lam: float, sigma: float, kappa: float) -> np.ndarray:
    return lam * n / (1 + sigma * (n - 1) + kappa * n * (n - 1))


def shape(n: np.ndarray, sigma: np.ndarray | float, kappa: np.ndarray | float) -> np.ndarray:
    """X / lambda for every (sigma, kappa) given (broadcast): the part of the law lambda scales."""
    return n / (1 + sigma * (n - 1) + kappa * n * (n - 1))


def best_lambda(x: np.ndarray, f: np.ndarray) -> np.ndarray:
    """The least-squares lambda for X ~ lambda * f, along the last axis."""
    return (x * f).sum(axis=-1) / (f * f).sum(axis=-1)


def residual_ss(n: np.ndarray, x: np.ndarray, sigma: np.ndarray, kappa: np.ndarray) -> np.ndarray:
    f = shape(n, sigma[..., None], kappa[..., None])
    lam = best_lambda(x, f)
    return ((x - lam[..., None] * f) ** 2).sum(axis=-1)


def grid_start(n: np.ndarray, x: np.ndarray) -> tuple[float, float]:
    s, k = np.meshgrid(SIGMAS, KAPPAS, indexing="ij")
    ss = residual_ss(n, x, s, k)
    i, j = np.unravel_index(np.argmin(ss), ss.shape)
    return float(SIGMAS[i]), float(KAPPAS[j])


def refine(n: np.ndarray, x: np.ndarray, sigma: float, kappa: float) -> tuple[float, float]:
    """Gauss-Newton on (sigma, kappa) with lambda profiled out, a step halved until it lowers the residual."""
    p = np.array([sigma, kappa])
    ss = float(residual_ss(n, x, p[:1], p[1:])[0])
    for _ in range(STEPS):
        step = bounded_step(*jacobian(n, x, p), p)
        for _ in range(30):
            trial = np.maximum(p + step, 0.0)
            trial_ss = float(residual_ss(n, x, trial[:1], trial[1:])[0])
            if trial_ss < ss:
                break
            step /= 2
        else:
            break
        if ss - trial_ss <= STEP_FLOOR * max(ss, STEP_FLOOR):
            p, ss = trial, trial_ss
            break
        p, ss = trial, trial_ss
    return float(p[0]), float(p[1])


def bounded_step(jac: np.ndarray, res: np.ndarray, p: np.ndarray) -> np.ndarray:
    """The Gauss-Newton step with a parameter held at 0 left out where the step would push it below.

    Clamping such a step afterwards moves the other parameter as if the held one had moved too,
    which stops short of the least-squares optimum along the bound: re-solving without it reaches it.
    """
    free = np.ones(len(p), dtype=bool)
    while free.any():
        step = np.zeros(len(p))
        step[free] = np.linalg.lstsq(jac[:, free], -res, rcond=None)[0]
        held = free & (p <= 0) & (step < 0)
        if not held.any():
            return step
        free &= ~held
    return np.zeros(len(p))


def residuals(n: np.ndarray, x: np.ndarray, p: np.ndarray) -> np.ndarray:
    f = shape(n, p[0], p[1])
    return x - best_lambda(x, f) * f


def jacobian(n: np.ndarray, x: np.ndarray, p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Forward differences of the residuals in sigma and kappa, each step scaled to the parameter."""
    res = residuals(n, x, p)
    cols = []
    for k in range(2):
        h = max(abs(p[k]) * 1e-6, 1e-10)
        bumped = p.copy()
        bumped[k] += h
        cols.append((residuals(n, x, bumped) - res) / h)
    return np.column_stack(cols), res


def fit_usl(levels: Sequence[float], tps: Sequence[float | None]) -> UslFit | None:
    """The law fitted to (concurrency, TPS) points; None under MIN_LEVELS distinct levels with a TPS."""
    points = sorted({float(c): float(t) for c, t in zip(levels, tps, strict=True) if t is not None}.items())
    if len(points) < MIN_LEVELS:
        return None
    n, x = np.array([p[0] for p in points]), np.array([p[1] for p in points])
    sigma, kappa = refine(n, x, *grid_start(n, x))
    f = shape(n, sigma, kappa)
    lam = float(best_lambda(x, f))
    total = float(((x - x.mean()) ** 2).sum())
    r2 = 1 - float(((x - lam * f) ** 2).sum()) / total if total else 1.0
    return UslFit(lam, sigma, kappa, r2, len(points), float(n[0]), float(n[-1]))


def leave_one_out(levels: Sequence[float], tps: Sequence[float | None], left: float) -> float | None:
    """The TPS at level `left` predicted by the law fitted to the other levels."""
    kept = [(c, t) for c, t in zip(levels, tps, strict=True) if c != left]
    fit = fit_usl([c for c, _ in kept], [t for _, t in kept])
    return None if fit is None else fit.predict(left)
