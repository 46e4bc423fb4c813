"""Which TPS an A/B ratio reads (the server's, or each load's own count), the ratio, and the note on other clients."""

from dashboards.analysis.ab_ratio import AbRatio, ab_ratio, told
from dashboards.analysis.own_load import OTHERS_THRESHOLD, against_load, others_ran


def ran_others(row: dict) -> bool:
    """Other clients ran part of the run's server transactions, judged as its run report does: over the seconds
    its polls cover (covered) of its window (span), beyond the load's whole count (own_load.others_ran)."""
    return others_ran(row["others"], row["covered"], row["span"])


def not_the_loads(row: dict) -> bool:
    """The run's server TPS is not its load's: others ran beside it, or the server counted fewer by the threshold
    (its counter misses some of the load's transactions)."""
    return ran_others(row) or (row["others"] is not None and row["others"] < -OTHERS_THRESHOLD)


def ab_verdict(rows: list[dict]) -> dict:
    """The A/B ratio over per-run rows (group, run, server_tps, own_tps, others, covered, span), each given the
    tps it reads.

    The server's TPS counts every client's transactions: where each run's load counted its own
    and some run's server TPS is not its load's (not_the_loads), the ratio reads the load's own
    TPS, else the server's (with a warning where others ran but a run has no count).
    """
    by_own = bool(rows) and all(r["own_tps"] is not None for r in rows) and any(not_the_loads(r) for r in rows)
    for row in rows:
        row["tps"] = row["own_tps"] if by_own else row["server_tps"]
    ratio: AbRatio = ab_ratio([r["tps"] for r in rows if r["group"] == "A" and r["tps"] is not None],
                              [r["tps"] for r in rows if r["group"] == "B" and r["tps"] is not None])
    return {"ratio": ratio, "told": told(ratio), "rows": rows,
            "unmeasured": [r["run"] for r in rows if r["tps"] is None],
            "by_own": by_own, "others_note": others_note(rows, by_own)}


def others_note(rows: list[dict], by_own: bool) -> str:
    """Where the ratio's TPS came from when other clients ran part of the server's transactions."""
    shares = [r["others"] for r in rows if r["others"] is not None]
    if by_own and min(shares) < 0:  # some server counted fewer than its load: no other clients to name
        more = f"; other clients ran up to {max(shares) * 100:.1f} %" if any(map(ran_others, rows)) else ""
        return (f"from the load's own counts: the server's TPS was up to {-against_load(min(shares)) * 100:.1f} % "
                f"below the load's own{more}")
    if by_own:
        return (f"from the load's own counts: other clients ran {min(shares) * 100:.1f}-{max(shares) * 100:.1f} % "
                "of the server's transactions")
    if not any(map(ran_others, rows)):
        return ""
    missing = ", ".join(r["run"].name for r in rows if r["own_tps"] is None)
    return (f"other clients ran up to {max(shares) * 100:.1f} % of the server's transactions in runs whose load "
            f"counted its own, but {missing} kept no count of its own: the ratio reads the server's TPS, "
            "which includes the other clients'")
