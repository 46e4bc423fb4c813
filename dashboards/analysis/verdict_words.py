"""The stability verdict's clauses that depend on the data: what drifted, the history's humps.

Pure: the stability page and the run report say them the same way (templates/dashboards/_verdict.html).
"""

from datetime import datetime

from dashboards.analysis.history_shape import Hump
from dashboards.analysis.run_verdict import Drift, Verdict


def hms(t: datetime) -> str:
    return f"{t:%H:%M:%S}"


def drifted(v: Verdict) -> str:
    """What drifted, and only that: TPS when its interval excludes 0, the history length after its humps."""
    parts = []
    if v.drift:
        parts.append(f"TPS {v.drift.pct_per_min:,.2f} %/min ({interval(v.drift, 2)})")
    if v.history:
        way = "growing" if v.history.pct_per_min > 0 else "draining"
        since = f" since {hms(v.history_since)}" if v.history_since else ""
        parts.append(f"history length {way} {abs(v.history.pct_per_min):,.0f} / min{since} ({interval(v.history, 0)})")
    return ", ".join(parts)


def interval(d: Drift, digits: int) -> str:
    return f"95 % interval {d.low:,.{digits}f} to {d.high:,.{digits}f}"


def hump_said(h: Hump) -> str:
    """A rise that fell back: who held it when known, else its shape."""
    back = f"{h.fell_to:,.0f} at {hms(h.fell_at)}" if h.cliff else f"drained to {h.fell_to:,.0f} by {hms(h.fell_at)}"
    if h.held_by and h.held_from and h.held_to:
        return (f"history length held by a read view from {hms(h.held_from)} to {hms(h.held_to)} "
                f"({h.held_by}; peak {h.peak:,.0f}), released: {back}")
    fell = f"fell to {back}" if h.cliff else back
    return f"history length rose to {h.peak:,.0f} at {hms(h.peak_at)} (from {hms(h.rose_at)}), then {fell}"


def humps_said(v: Verdict) -> str:
    return "; ".join(hump_said(h) for h in v.humps)


def verdict_text(v: Verdict) -> dict[str, str]:
    """The clauses _verdict.html says."""
    return {"drifted": drifted(v), "humps": humps_said(v)}
