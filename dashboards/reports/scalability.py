"""A scalability study: the sweeps (or runs) picked in the address, measured, with what differed between them.

Shared by the Scalability page, its printable report and its CSV.
"""

from dataclasses import dataclass, field
from urllib.parse import urlencode

from django.http import QueryDict

from dashboards.analysis.cpu_saturation import cpu_reading
from dashboards.analysis.own_load import others_sentence
from dashboards.analysis.scalability import Curve, gains, has_cpu, measured, ratio_table, top_waits
from dashboards.analysis.scaling_reading import (
    bottleneck_steps,
    breaking_level,
    curve_fit,
    efficiency,
    faster_than_linear,
    lead,
    moves,
    upturn,
    waits_unread,
)
from dashboards.analysis.settings_diff import Setting, changes
from dashboards.host_series import has_host_metrics
from dashboards.query_params import BadParam, knee_threshold, listed_ids, sweep_names
from dashboards.reports.settings_diff import show, snapshot
from dashboards.scalability_levels import curves
from servers.models import Run

MAX_CURVES = 12
MAX_RUNS = 500


class StudyError(BadParam):
    """A selection the page cannot draw, worded for the user."""


@dataclass
class Study:
    curves: list[Curve]
    threshold: float
    query: str  # the selection, to link the CSV and the report
    events: list[str] = field(default_factory=list)
    table: list[dict] = field(default_factory=list)
    sections: list[dict] = field(default_factory=list)  # per curve: its levels with gains, its settings changes
    host: bool = False  # a server of the study has node_exporter data: CPU per transaction is drawn


def pick_runs(get: QueryDict) -> list[Run]:
    """The steps of the sweeps named (sweep=A&sweep=B) and the runs listed (runs=1,2)."""
    names = sweep_names(get)
    if not names and not get.get("runs", "").strip():
        raise StudyError("pick sweeps (sweep=NAME) or runs with a concurrency (runs=3,5,8)")
    known = set(Run.objects.filter(sweep__in=names).values_list("sweep", flat=True))
    missing = [n for n in names if n not in known]
    if missing:
        raise StudyError(f"no sweep named {missing[0]!r}: pick one from the list")
    ids, bad = listed_ids(get, "runs")
    if bad:
        raise StudyError(f"runs: {bad[0]!r} is not a run id; give ids like runs=3,5,8")
    runs = list(Run.objects.filter(sweep__in=names).select_related("server")[:MAX_RUNS])
    listed = Run.objects.filter(pk__in=ids).exclude(sweep__in=names).select_related("server")
    runs += list(listed)
    if ids and not listed and not names:
        raise StudyError(f"no runs with the ids {', '.join(map(str, ids))}")
    without = [r.name for r in runs if not r.concurrency]
    if without:
        raise StudyError(f"run '{without[0]}' has no concurrency: record it with stress --sweep, bench_run or "
                         "the API's concurrency field")
    return runs


def curve_settings(curve: Curve) -> tuple[list[Setting], list[str]]:
    """The variables in force at the curve's end, and those whose readings changed while it ran.

    The end, not the start: variables are read once a minute, so a SET GLOBAL made just before
    a sweep shows in the store during its first step.
    """
    if not curve.levels:
        return [], []
    server_id, start, end = curve.levels[0].run.server_id, curve.levels[0].run.started_at, curve.levels[-1].window.end
    during = snapshot(server_id, start, end)
    return snapshot(server_id, end, end), [s.name for s in during if s.changed_during_run]


def setting_changes(found: list[Curve]) -> list[dict]:
    """Per curve: the variables that differ from the first curve's, and those that changed during it."""
    read = [curve_settings(curve) for curve in found]
    out = []
    for k, (settings, moved) in enumerate(read):
        diff = changes(read[0][0], settings) if k else []
        out.append({"differ": [{"name": c.name, "before": show(c.before), "after": show(c.after)} for c in diff],
                    "moved": moved})
    return out


def section(curve: Curve, settings: dict, index: int) -> dict:
    """A curve's reading: its levels (gain, efficiency, other clients), whether the host CPU was saturated (read
    first: a full CPU bends the law and the waits too), the law's fit, where the bottleneck moves.

    `anchor` names the curve's levels table on the page, which each verdict sentence links to.
    """
    # The last level of a curve still scaling is no knee: its table row and CSV say "still scaling", as its chart.
    scaling = curve.still_scaling
    gained, efficient = gains(curve.levels), efficiency(curve.levels)
    levels = [{"level": lv, "gain": gain, "knee": lv is curve.knee and not scaling,
               "scaling": lv is curve.knee and scaling,
               "others": others_sentence(lv.others, lv.tps.seconds, lv.span), "efficiency": eff}
              for lv, gain, eff in zip(curve.levels, gained, efficient, strict=True)]
    unread = waits_unread(curve.levels)
    steps, found = [] if unread else bottleneck_steps(curve.levels), measured(curve.levels)
    fit = curve_fit(curve)
    return {"curve": curve, "levels": levels, "changes": settings["differ"], "moved": settings["moved"],
            "upturn": upturn(found, gains(found)), "faster": faster_than_linear(curve.levels, efficient),
            "cpu": cpu_reading(curve), "fit": fit, "outlier": breaking_level(curve, fit), "steps": steps,
            "moves": moves(steps), "lead": lead(steps), "waits_unread": unread,
            "anchor": f"curve-{index}",
            "statements": None}  # statements per level: from the statements source, when it is collected


def selection_query(get: QueryDict, threshold: float) -> str:
    pairs = [("sweep", n) for n in get.getlist("sweep") if n.strip()]
    pairs += [("runs", r) for r in get.getlist("runs") if r.strip()]
    return urlencode([*pairs, ("knee", f"{threshold * 100:g}")])


def study(get: QueryDict) -> Study:
    threshold = knee_threshold(get)
    found = curves(pick_runs(get), threshold)
    if len(found) > MAX_CURVES:
        raise StudyError(f"{len(found)} curves picked: pick at most {MAX_CURVES}")
    diffs = setting_changes(found)
    return Study(found, threshold, selection_query(get, threshold), top_waits(found), ratio_table(found),
                 [section(c, d, i) for i, (c, d) in enumerate(zip(found, diffs, strict=True))], host_data(found))


def host_data(found: list[Curve]) -> bool:
    """Whether CPU per transaction can be drawn: measured in a step, or node_exporter data on a server."""
    servers = {lv.run.server_id for curve in found for lv in curve.levels}
    return has_cpu(found) or any(has_host_metrics(sid) for sid in servers)


def sweeps() -> list[dict]:
    """Every sweep for the picker: its server, label, levels and when its first step started, newest first."""
    rows: dict[str, dict] = {}
    for run in Run.objects.exclude(sweep="").select_related("server").order_by("-started_at")[:5000]:
        row = rows.setdefault(run.sweep, {"name": run.sweep, "server": run.server.name, "label": run.label,
                                          "started_at": run.started_at, "levels": []})
        row["started_at"] = run.started_at  # newest first: the last one seen is the sweep's first step
        if run.concurrency:
            row["levels"].append(run.concurrency)
    for row in rows.values():
        row["levels"] = sorted(set(row["levels"]))
    return list(rows.values())
