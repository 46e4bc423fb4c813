"""Runs put in group A and group B for the compare page's A/B sentence.

?a=1,2,3&b=4,5,6 (ids), or ?a_label=X&b_label=Y (every run with that label, newest first), or from
the Runs page the ticked runs (runs=) as A with the runs ticked in its B column (b=).
"""

from dataclasses import dataclass, field

from django.http import QueryDict

from dashboards.analysis.ab_verdict import ab_verdict
from dashboards.analysis.own_load import others_share
from dashboards.own_load_reads import own_load
from dashboards.query_params import ab_asked, ab_label, listed_ids
from dashboards.reports.summary import RunSummary
from servers.models import Run

MAX_GROUP = 100


@dataclass
class Groups:
    a: list[Run] = field(default_factory=list)
    b: list[Run] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def runs(self) -> list[Run]:
        return self.a + self.b


def ids_of(get: QueryDict, key: str, problems: list[str]) -> list[int]:
    ids, bad = listed_ids(get, key)
    problems += [f"{key}: {p!r} is not a run id" for p in bad]
    return list(dict.fromkeys(ids))


def group(get: QueryDict, side: str, problems: list[str]) -> list[Run]:
    """One side's runs: by label, else by ids (side A falls back to the ticked runs=)."""
    label, problem = ab_label(get, side)
    if problem:
        problems.append(problem)
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
    if not ab_asked(get):
        return None
    problems: list[str] = []
    a, b = group(get, "a", problems), group(get, "b", problems)
    both = {run.pk for run in a} & {run.pk for run in b}
    if both:
        problems.append(f"run {', '.join(map(str, sorted(both)))} is in both groups: kept in A only")
    return Groups(a, [run for run in b if run.pk not in both], problems)


def verdict(groups: Groups, summaries: dict[int, RunSummary]) -> dict:
    """The A/B ratio over the runs' average TPS, and the per-run rows it was computed from (analysis/ab_verdict).
    summaries: each run's, as its row of the compare page shows it."""
    return ab_verdict([ab_row(side, run, summaries.get(run.pk))
                       for side, runs in (("A", groups.a), ("B", groups.b)) for run in runs])


def ab_row(side: str, run: Run, summary: RunSummary | None) -> dict:
    """A run's server and own TPS, with the seconds its polls cover of its window (what the run report judges
    other clients by)."""
    server = summary.tps.mean if summary else None
    own = own_load(run, summary.warmup if summary else 0)
    mine = own.tps if own else None
    return {"group": side, "run": run, "server_tps": server, "own_tps": mine, "others": others_share(server, mine),
            "covered": summary.covered if summary else None, "span": summary.seconds if summary else None}
