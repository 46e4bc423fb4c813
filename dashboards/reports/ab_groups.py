"""Runs put in group A and group B for the compare page's A/B sentence.

?a=1,2,3&b=4,5,6 (ids), or ?a_label=X&b_label=Y (every run with that label, newest first), or from
the Runs page the ticked runs (runs=) as A with the runs ticked in its B column (b=).
"""

from dataclasses import dataclass, field

from django.http import QueryDict

from dashboards.analysis.ab_ratio import AbRatio, ab_ratio
from dashboards.analysis.own_load import differs, others_share
from dashboards.own_load_reads import own_load
from dashboards.url_ids import parse_id
from servers.models import Run

MAX_GROUP = 100
KEYS = ("a", "b", "a_label", "b_label")


@dataclass
class Groups:
    a: list[Run] = field(default_factory=list)
    b: list[Run] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def runs(self) -> list[Run]:
        return self.a + self.b


def asked(get: QueryDict) -> bool:
    return any(get.getlist(key) and any(v.strip() for v in get.getlist(key)) for key in KEYS)


def ids_of(get: QueryDict, key: str, problems: list[str]) -> list[int]:
    parts = [p.strip() for p in ",".join(get.getlist(key)).split(",") if p.strip()]
    ids = [parse_id(p) for p in parts]
    problems += [f"{key}: {p!r} is not a run id" for p, i in zip(parts, ids, strict=True) if i is None]
    return list(dict.fromkeys(i for i in ids if i is not None))


def group(get: QueryDict, side: str, problems: list[str]) -> list[Run]:
    """One side's runs: by label, else by ids (side A falls back to the ticked runs=)."""
    label = get.get(f"{side}_label", "").strip()
    if "\x00" in label:
        problems.append(f"{side}_label holds a NUL byte, which no label has")
        return []
    if label:
        found = list(Run.objects.filter(label=label).select_related("server")[:MAX_GROUP])
        if not found:
            problems.append(f"{side}_label: no run is labelled {label!r}")
        return found
    key = side if get.getlist(side) or side == "b" else "runs"
    ids = ids_of(get, key, problems)[:MAX_GROUP]
    by_id = Run.objects.select_related("server").in_bulk(ids)
    problems += [f"{key}: there is no run {i}" for i in ids if i not in by_id]
    return [by_id[i] for i in ids if i in by_id]


def pick_groups(get: QueryDict) -> Groups | None:
    """The two groups asked for, None when the address asks for none; a run in both is kept in A only."""
    if not asked(get):
        return None
    problems: list[str] = []
    a, b = group(get, "a", problems), group(get, "b", problems)
    both = {run.pk for run in a} & {run.pk for run in b}
    if both:
        problems.append(f"run {', '.join(map(str, sorted(both)))} is in both groups: kept in A only")
    return Groups(a, [run for run in b if run.pk not in both], problems)


def verdict(groups: Groups, means: dict[int, float | None]) -> dict:
    """The A/B ratio over the runs' average TPS, and the per-run rows it was computed from.

    The server's TPS counts every client's transactions: where each run's load counted its own
    and some run's server TPS differs from it by more than own_load's threshold, the ratio reads
    the load's own TPS, else the server's (with a warning where others ran but a run has no count).
    """
    rows = []
    for side, runs in (("A", groups.a), ("B", groups.b)):
        for run in runs:
            own = own_load(run)
            server, mine = means.get(run.pk), own.tps if own else None
            rows.append({"group": side, "run": run, "server_tps": server, "own_tps": mine,
                         "others": others_share(server, mine)})
    by_own = bool(rows) and all(r["own_tps"] is not None for r in rows) and any(differs(r["others"]) for r in rows)
    for row in rows:
        row["tps"] = row["own_tps"] if by_own else row["server_tps"]
    ratio: AbRatio = ab_ratio([r["tps"] for r in rows if r["group"] == "A" and r["tps"] is not None],
                              [r["tps"] for r in rows if r["group"] == "B" and r["tps"] is not None])
    return {"ratio": ratio, "rows": rows, "unmeasured": [r["run"] for r in rows if r["tps"] is None],
            "by_own": by_own, "others_note": others_note(rows, by_own)}


def others_note(rows: list[dict], by_own: bool) -> str:
    """Where the ratio's TPS came from when other clients ran part of the server's transactions."""
    shares = [r["others"] for r in rows if r["others"] is not None]
    if by_own and min(shares) < 0:  # some server counted fewer than its load: no other clients to name
        more = f"; other clients ran up to {max(shares) * 100:.1f} %" if differs(max(shares)) else ""
        return (f"from the load's own counts: the server counted up to {-min(shares) * 100:.1f} % fewer "
                f"transactions than the load itself{more}")
    if by_own:
        return (f"from the load's own counts: other clients ran {min(shares) * 100:.1f}-{max(shares) * 100:.1f} % "
                "of the server's transactions")
    if not any(differs(s) for s in shares):
        return ""
    missing = ", ".join(r["run"].name for r in rows if r["own_tps"] is None)
    return (f"other clients ran up to {max(shares) * 100:.1f} % of the server's transactions in runs whose load "
            f"counted its own, but {missing} kept no count of its own: the ratio reads the server's TPS, "
            "which includes the other clients'")
