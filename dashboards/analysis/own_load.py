"""What the load under test counted itself: the stress driver's figures or sysbench's summary.

The server's TPS counts every client's transactions; the driver counts its own. The two are
compared like with like: the server's transactions over the seconds its polls cover against the
most the load can have run in those seconds, its whole count (its rate over the whole step times
the step's seconds). Where the server counts more than that by more than OTHERS_THRESHOLD (the
poll's timing), other clients (the demo's own load, another test) ran the difference, and a curve
drawn from the server's TPS is not the load's. A smaller surplus is the window's mismatch: the
polls miss seconds of the step where the load ran slower (its ramp, its last seconds). Where it
counts fewer, no other client explains it: its polls cover part of the step, or its counter
misses some transactions.
"""

from dataclasses import dataclass

OTHERS_THRESHOLD = 0.05  # of the server's TPS


@dataclass(frozen=True)
class OwnLoad:
    tool: str  # stress | sysbench
    tps: float | None  # its transactions per second after the warm-up
    latency_avg_ms: float | None = None
    latency_p95_ms: float | None = None
    errors: int | None = None  # rolled back (stress) or ignored errors (sysbench)
    qps: float | None = None  # sysbench's queries per second
    # Where its own count covers another span than the run's window: the seconds each leaves out at the start
    # (tps is then None: not compared with the server's).
    skipped: int | None = None
    trimmed: int | None = None

    @property
    def other_span(self) -> str:
        """Why its TPS is not compared, or ''."""
        if self.skipped is None:
            return ""
        return (f"its own count leaves out the first {self.skipped} s of its run, the run's figures the first "
                f"{self.trimmed} s: they cover different seconds, so the two are not compared")


def from_figures(figures: dict | None) -> OwnLoad | None:
    """The load's own figures as the stress driver keeps them (or sysbench's summary, parsed); None for neither."""
    if not figures:
        return None
    return OwnLoad(figures.get("tool", ""), figures.get("tps"), figures.get("latency_avg_ms"),
                   figures.get("latency_p95_ms"), figures.get("errors"), figures.get("qps"))


def others_share(server_tps: float | None, own_tps: float | None) -> float | None:
    """The share of the server's transactions the load did not run: (server - own) / server.

    Negative where the server counted fewer than the load (its counter misses some of them).
    """
    if not server_tps or own_tps is None:
        return None
    return (server_tps - own_tps) / server_tps


def against_load(share: float) -> float:
    """others_share() as a share of the load's own TPS: server / own - 1 (above 0: the server's is higher).

    "X % more than the load" divides by the load's: 221.6 TPS by the server against 201.1 by the load is
    10.2 % more, while (server - own) / server is 9.2 %."""
    return share / (1 - share) if share < 1 else float("inf")


def differs(share: float | None) -> bool:
    return share is not None and abs(share) > OTHERS_THRESHOLD


def others_ran(share: float | None, covered: float | None = None, span: float | None = None) -> bool:
    """The server counted more than the load could have run over the seconds its polls cover, by the threshold:
    other clients ran the difference. Only this: other clients can make the server count more, never fewer.

    Over `covered` of the step's `span` seconds the load ran at most its whole count, own TPS × span: the
    server's TPS beyond own TPS × span / covered is others'. Without them, the two cover the same seconds.
    """
    if share is None:
        return False
    stretch = span / covered if covered and span and covered < span else 1.0
    return 1 - (1 - share) * stretch > OTHERS_THRESHOLD


def others_sentence(share: float | None, covered: float | None = None, span: float | None = None) -> str:
    """'other clients: 49.6 % of the transactions', or why the server's count differs; '' within the threshold.

    Where the polls inside the step (covered seconds) leave part of its span out, the server's TPS is of that
    part and the load's of the whole step: a difference that explains (fewer, or more within others_ran's
    bound) is said with both, in whole seconds.
    """
    if share is None or not differs(share):
        return ""
    if others_ran(share, covered, span):
        return f"other clients: {share * 100:.1f} % of the transactions"
    counted = (f"the server's TPS is {abs(against_load(share)) * 100:.1f} % {'above' if share > 0 else 'below'} "
               "the load's own")
    if covered is not None and span and (round(covered) < round(span) or share > 0 and covered < span):
        return (f"{counted}: the polls inside the step cover {covered:.0f} of its {span:.0f} s, so the server's "
                "TPS is of that part, the load's of the whole step")
    return f"{counted} over the whole step: its counter misses some of them"
