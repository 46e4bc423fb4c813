"""The stability verdict's clauses that depend on the data: what drifted, the history's humps, the warm-up.

Pure: the stability page and the run report say them the same way (templates/dashboards/_verdict.html).
"""

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime

from collectors.metric import PS_PER_S
from dashboards.analysis.history_shape import Hump, Rise
from dashboards.analysis.levels import STALL_SHARE, Shift
from dashboards.analysis.run_summary import Warmup
from dashboards.analysis.run_verdict import MIN_POINTS, Drift, MovingWait, Verdict
from dashboards.analysis.stability import MIN_DIP_COUNT


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


def shifted(v: Verdict) -> str:
    """The level changes, each from the level before it, then the history length's drift when it drifted too."""
    if not v.shifts:
        return ""
    first = v.shifts[0]
    text = f"TPS from {first.before:,.1f} to {first.after:,.1f} at {hms(first.at)}{change(first)}"
    text += "".join(f", to {s.after:,.1f} at {hms(s.at)}{change(s)}" for s in v.shifts[1:])
    return f"{text}; {drifted(v)}" if v.history else text


def change(s: Shift) -> str:
    """The change as % of the level before, where that level counted transactions as the sentence prints it (a
    level of one transaction in 119 polls reads 0.0: "+594,900 %" of it says nothing)."""
    return f" ({s.pct:+,.0f} %)" if round(s.before, 1) else ""


LEVELS = {2: "Two", 3: "Three", 4: "Four", 5: "Five"}


def levels_said(v: Verdict) -> str:
    """How many levels, and when the load changed: the times to mark as annotations."""
    if not v.shifts:
        return ""
    last = v.shifts[-1]
    if last.after < STALL_SHARE * last.before:  # the range ends on next to nothing: a stall still going, or no load
        stalled = (f"TPS fell to under a tenth of its level at {hms(last.at)} UTC and stayed there to the range's "
                   "end: a stall still going (a lock held, a full disk) or the load stopped; the dips table lists it")
        before = levels_said(replace(v, shifts=v.shifts[:-1])) if len(v.shifts) > 1 else stalls_said(v)
        return f"{before}; then {stalled}" if before else stalled
    times = [f"{hms(s.at)}" for s in v.shifts]
    it = "it as an annotation to keep it" if len(times) == 1 else "them as annotations to keep them"
    text = (f"{LEVELS.get(len(times) + 1, len(times) + 1)} levels, not a drift: the load or a setting changed at "
            f"{listed(times)} UTC (mark {it}); each level is read on its own")
    return f"{text}; {stalls_said(v)}" if v.stalls else text


def sweep_levels_said(sweep: str, threads: Sequence[int | None], shifts: Sequence[Shift]) -> str:
    """A sweep's range: the levels are its steps, whose load changed by design (sweep_levels)."""
    counts = f" ({listed([str(n) for n in threads])} threads)" if all(threads) else ""
    times = listed([hms(s.at) for s in shifts])
    return (f"{LEVELS.get(len(shifts) + 1, len(shifts) + 1)} levels, not a drift: the steps of sweep {sweep}{counts}, "
            f"the load changed by design at {times} UTC; each level is its step's polls after its warm-up, the "
            "first left out (the Scalability page compares them)")


def listed(items: list[str]) -> str:
    """"a", "a and b", "a, b and c"."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def stalls_said(v: Verdict) -> str:
    """The stalls between two levels, and one too short for a level starting or ending the polls judged, left out
    of them (levels.stalls_of, short_stalls)."""
    starting = [(first, last) for first, last in v.stalls if first == v.warmup_end]
    ending = [(first, last) for first, last in v.stalls if last == v.last_poll and first != v.warmup_end]
    inside = [s for s in v.stalls if s not in starting and s not in ending]
    said = [f"the polls from {hms(first)} to {hms(last)} UTC, the first judged, are a stall (under a tenth of the "
            "level after them), left out of the levels; the dips table lists it" for first, last in starting]
    if inside:
        spans = listed([f"at {hms(first)}" if first == last else f"from {hms(first)} to {hms(last)}"
                        for first, last in inside])
        one = len(inside) == 1
        subject = "the poll" if one and inside[0][0] == inside[0][1] else "the polls"
        verb = ("is a stall" if subject == "the poll" else "are a stall") if one else "are stalls"
        said.append(f"{subject} {spans} UTC {verb} (under a tenth of the levels on both sides), left out of the "
                    f"levels; the dips table lists {'it' if one else 'them'}")
    for first, last in ending:
        said.append(f"the polls from {hms(first)} to {hms(last)} UTC, the range's last, are a stall (under a tenth "
                    "of the level before them), left out of the levels; the dips table lists it")
    return "; ".join(said)


def dips_said(v: Verdict) -> str:
    """How deep the dips are and which waits grew in them (run_verdict.dips_compared), as one would read them off
    the chart: TPS in them against between them, each wait's seconds waited a second the same way. A drift's
    stalls, which its headline does not name, are said first: a row-lock wait at 6 s a second in them, 0.5
    between, read "Drifting: history length growing ..." and nothing more."""
    grew = listed([f"{w.name} ({w.inside / PS_PER_S:,.2f} s waited a second in them against "
                   f"{w.between / PS_PER_S:,.2f})" for w in v.dip_waits]) if v.dip_waits else ""
    waits = f"the wait{'s' if len(v.dip_waits) > 1 else ''} that grew in them: {grew}"
    if v.dip_tps is None and v.kind == "drifting":  # stalls the headline does not name: a drift's
        return f"TPS stalled as well (the dips table lists the stalls); {waits}" if grew else ""
    if v.dip_tps is None:  # a level change's stalls: the polls between them hold two loads, no one TPS
        return f"In the stalls, {waits}" if grew else ""
    inside, between = v.dip_tps
    text = f"TPS averaged {inside:,.1f} in the dips' polls against {between:,.1f} in the others"
    return f"{text}; {waits}" if grew else text


def off_period_said(v: Verdict) -> str:
    """The stalls of a periodic line off its period, when each began: one odd lock among ten regular ones keeps the
    period (run_verdict.off_grid), and read "and 1 one-poll dip (a blip, not a stall)" for a 10 s stall at 0 TPS."""
    if not v.off_period:
        return ""
    n = len(v.off_period)
    return f"and {n} stall{'s' if n > 1 else ''} off the period at {listed([hms(d.start) for d in v.off_period])} UTC"


MAX_SAGS = 3  # more are counted, not listed


def others_said(v: Verdict) -> str:
    """The dips besides those the headline judges, as the chart shows them: the sags (two polls or more under the
    threshold that did not stop TPS), each with its polls, depth and when; then the one-poll blips, counted. Two
    sags of 3 polls at 300 TPS of a 1,000 level read "and 2 one-poll dips (a blip, not a stall)"."""
    said = []
    if v.sags:
        each = [f"{s.polls} polls to {s.pct:,.0f} % of its level from {hms(s.start)} to {hms(s.end)} UTC"
                for s in v.sags[:MAX_SAGS]]
        if len(v.sags) > MAX_SAGS:
            each.append(f"{len(v.sags) - MAX_SAGS} more")
        n = len(v.sags)
        what = "a sag" if n == 1 else f"{n} sags"
        said.append(f"and {what} that slowed TPS without stopping it ({listed(each)})")
    if v.other_dips:
        said.append(f"and {v.other_dips} one-poll dip{'s' if v.other_dips > 1 else ''} (a blip, not a stall)")
    return ", ".join(said)


def hidden_said(moving: Sequence[MovingWait]) -> list[tuple[str, str]]:
    """Each hidden wait that moves against TPS (run_verdict.moving_lines), and how: its correlation with TPS, else
    (the correlation missed it) its seconds waited a second in the dips against between them."""
    return [(w.name, moving_how(w)) for w in moving if w.r is not None or w.grew is not None]


def moving_how(w: MovingWait) -> str:
    if w.r is not None or w.grew is None:
        return f"correlation with TPS {w.r or 0.0:,.2f}"
    return (f"{w.grew.inside / PS_PER_S:,.2f} s waited a second in the dips against "
            f"{w.grew.between / PS_PER_S:,.2f} between them")


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


MAX_HUMPS = 3  # more are summed up in one clause: a demo load holds a read view every 3 minutes


def rise_said(r: Rise) -> str:
    """A rise at the end that has not fallen back: who holds it when known."""
    held = f" (held by a read view: {r.held_by}, open since {hms(r.held_from)})" if r.held_by and r.held_from else ""
    last = "the last poll" if r.polls == 1 else f"the last {r.polls} polls"
    return f"history length rising at the end: from ~{r.level:,.0f} to {r.to:,.0f} in {last}{held}"


def humps_said(v: Verdict) -> str:
    """The humps, then the rise at the end."""
    text = humps_only(v)
    if v.rising:
        return f"{text}; {rise_said(v.rising)}" if text else rise_said(v.rising)
    return text


def humps_only(v: Verdict) -> str:
    if not v.humps:
        return ""
    if len(v.humps) <= MAX_HUMPS:
        return "; ".join(hump_said(h) for h in v.humps)
    top = max(v.humps, key=lambda h: h.peak)
    text = (f"history length rose and fell back {len(v.humps)} times from {hms(v.humps[0].rose_at)} to "
            f"{hms(v.humps[-1].fell_at)}, highest {top.peak:,.0f} at {hms(top.peak_at)}")
    held = [h.held_by for h in v.humps if h.held_by]
    if held:
        who = sorted(set(held))
        text += (f"; {len(held)} of them held by a read view ({'; '.join(who[:MAX_HUMPS])}"
                 + (f" and {len(who) - MAX_HUMPS} more" if len(who) > MAX_HUMPS else "") + ")")
    return text


def warmup_said(v: Verdict, run: Warmup | None) -> str:
    """Where the polls judged start: after the run's warm-up (its own, or found: the run gave none), or the
    run's first poll; on a range that is no run's, after the warm-up found, or the range's first poll."""
    at = f"{hms(v.warmup_end)} UTC" if v.warmup_end else "–"
    if v.warmup_stall is not None:  # a stall right after the ramp: left out with it, and said
        first, last = v.warmup_stall
        at = f"{at} (the warm-up ran on past a stall from {hms(first)} to {hms(last)} UTC, left out with it)"
    if run is not None and run.seconds:
        source = "found from the data: the run gave none" if run.found else "the run's own"
        return f"after the warm-up ({source}): judged from the poll at {at}"
    if run is not None:
        return f"no warm-up: from the run's first poll at {at}"
    if v.warmup_polls:
        return f"after the warm-up (found from the data): judged from the poll at {at}"
    return f"no warm-up found: from the range's first poll at {at}"


MAX_BURSTS = 3  # more are summed up: their count and transactions in all


def idle_said(v: Verdict) -> str:
    """An idle line (idle.idle_bursts): the polls that counted next to no transactions, then each burst, when and
    how many transactions."""
    n = len(v.bursts)
    text = f"{v.idle_polls} of {v.points} polls counted next to no transactions (fewer than {MIN_DIP_COUNT} each)"
    if not n:  # a commit or two: their swing is all the CV
        return text
    text += f", with {'one burst' if n == 1 else f'{n} bursts'}"
    said = [f"{b.transactions:,.0f} transactions from {hms(b.start)} to {hms(b.end)} UTC"
            for b in v.bursts[:MAX_BURSTS]]
    more = v.bursts[MAX_BURSTS:]
    if more:
        said.append(f"{len(more)} more of {sum(b.transactions for b in more):,.0f} transactions in all")
    return f"{text}: {listed(said)}"


def too_few_said(v: Verdict, basis: tuple[datetime, str, int] | None = None) -> str:
    """Too few polls for a verdict; where TPS's counter changed in the range (`basis`: the first point counted as
    the last ones count it, what they count, the points before it), that the verdict judges from then on only, which
    is what leaves so few: 177 points on the chart read "Too few polls (5; at least 10)" with no reason."""
    text = f"Too few polls for a verdict ({v.points}; at least {MIN_POINTS})"
    if basis is None:
        return text
    at, what, before = basis
    return (f"{text}: judged from {at:%Y-%m-%d %H:%M:%S} UTC on, the first point that counted TPS as {what}; the "
            f"{before:,} point{'s' if before != 1 else ''} before it counted it another way (the note above), and the "
            "step between them is the counter's, no level change of the server's. A verdict needs "
            f"{MIN_POINTS} polls counted the new way: a later range, or one starting at {hms(at)} UTC")


def verdict_text(v: Verdict, run: Warmup | None = None,
                 basis: tuple[datetime, str, int] | None = None) -> dict[str, str]:
    """The clauses _verdict.html says; `run`: the run's warm-up, on a run's pages; `basis`: too_few_said's."""
    return {"too_few": too_few_said(v, basis) if not v.kind else "",
            "drifted": drifted(v), "shifted": shifted(v), "levels": levels_said(v), "humps": humps_said(v),
            "warmup": warmup_said(v, run), "dips": dips_said(v), "idle": idle_said(v) if v.kind == "idle" else "",
            "off_period": off_period_said(v), "others": others_said(v)}
