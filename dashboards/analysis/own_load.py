"""What the load under test counted itself: the stress driver's figures or sysbench's summary.

The server's TPS counts every client's transactions; the driver counts its own. Where the
server counts more by more than OTHERS_THRESHOLD, other clients (the demo's own load, another
test) ran the difference, and a curve drawn from the server's TPS is not the load's. Where it
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


def differs(share: float | None) -> bool:
    return share is not None and abs(share) > OTHERS_THRESHOLD


def others_ran(share: float | None) -> bool:
    """The server counted more than the load by the threshold: other clients ran the difference. Only
    this: other clients can make the server count more, never fewer."""
    return share is not None and share > OTHERS_THRESHOLD


def others_sentence(share: float | None, covered: float | None = None, span: float | None = None) -> str:
    """'other clients: 49.6 % of the transactions', or why the server counted fewer; '' within the threshold.

    Fewer: where the polls inside the step (covered seconds) leave part of its span out, the server's TPS
    is of that part and the load's of the whole step: said with both, in whole seconds.
    """
    if share is None or not differs(share):
        return ""
    if share > 0:
        return f"other clients: {share * 100:.1f} % of the transactions"
    fewer = f"the server counted {-share * 100:.1f} % fewer transactions than the load itself"
    if covered is not None and span and round(covered) < round(span):
        return (f"{fewer}: the polls inside the step cover {covered:.0f} of its {span:.0f} s, so the server's "
                "TPS is of that part, the load's of the whole step")
    return f"{fewer} over the whole step: its counter misses some of them"
