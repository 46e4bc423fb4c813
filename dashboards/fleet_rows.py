"""The fleet overview's rows: every server now, its state and why, and the figures that matter now.

The CSV builds every server's row here (fleet_rows()); the page (dashboards.fleet_page) orders every
server and builds the rows of the servers it shows.
"""

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from django.utils import timezone

from alerts.numbers import fmt_span
from alerts.status import firing_for_servers
from collectors import weakened
from collectors.sources import wait_instruments
from dashboards import host_series, reads
from dashboards.analysis.fleet_state import DISABLED, DOWN, NEVER, STALE, UP, State, ago, server_state, stale_limit
from dashboards.analysis.purge_growth import MIN_POLLS, REACH, Trend, current_trend
from dashboards.analysis.replica_now import ReplicaNow, replica_now
from dashboards.analysis.topwaits import TIME_PREFIX
from servers.models import Server
from store import query


@dataclass(frozen=True)
class FleetTrend:
    """The history length's slope over its current segment (purge_growth.current_trend, as the purge page)."""

    per_minute: float | None  # 0 when flat; None: no trend (why says so)
    span: timedelta = timedelta(0)  # from the first to the last poll it was fitted to
    since_hole: datetime | None = None  # the first poll after a hole, when the segment starts there
    why: str = ""
    since: datetime | None = None  # the segment's first poll: the last turning point


@dataclass
class FleetRow:
    server: Server
    state: State
    alerts: list[str]
    tps: float | None = None
    history: float | None = None
    history_per_min: float | None = None
    top_wait: reads.TopWait | None = None
    cpu_busy: float | None = None  # % of the host at the last node_exporter poll
    replica: ReplicaNow | None = None  # None: never read as a replica
    at: dict[str, datetime] = field(default_factory=dict)  # each figure's reading time: tps, history, top_wait, cpu
    # The figures whose reading is older than the server's staleness limit: "at HH:MM:SS UTC (N min ago)".
    old: dict[str, str] = field(default_factory=dict)
    trend: FleetTrend = FleetTrend(None)
    trend_note: str = ""  # since when it holds: the turning point, or the resumed polling
    waits_off: str = ""  # the wait instruments the newest poll found off ("288 of 288 wait/synch/%"), or ""


def health_of(server: Server):
    """The collectors' ServerHealth row, or None before the first poll."""
    try:
        return server.health
    except Exception:  # noqa: BLE001 - RelatedObjectDoesNotExist, or the model not there yet
        return None


# The wait instruments off and all of them, per family, as wait_instruments stores them every poll.
INSTRUMENTS = [(family, wait_instruments.OFF_GAUGE + family, wait_instruments.ALL_GAUGE + family)
               for family in weakened.WAIT_FAMILIES]
# TPS, history length, wait rates, replica state, CPU busy, wait instruments off.
FIGURES = [*reads.FLEET_NOW, host_series.BUSY, *(name for _, *gauges in INSTRUMENTS for name in gauges)]
# Problems first: a server that is down must not hide below the healthy ones.
STATE_ORDER = {DOWN: 0, STALE: 1, NEVER: 2, UP: 3, DISABLED: 4}


def fleet_rows(servers: list[Server], conditions: bool) -> list[FleetRow]:
    """Each server now, worst first (ranked()), with its figures."""
    now = timezone.now()
    rows = ranked(servers, now)
    with_figures(rows, conditions, now)
    return rows


def ranked(servers: list[Server], now: datetime) -> list[FleetRow]:
    """Every server's state and alerts, worst first: down, stale, never polled, then up (those with an alert
    firing first), then disabled; by name within each. No figures yet: a page fills only the rows it shows."""
    alerts = firing_for_servers([s.pk for s in servers])
    rows = [FleetRow(s, server_state(s, health_of(s), now), alerts.get(s.pk, [])) for s in servers]
    return sorted(rows, key=lambda r: rank(r.state.name, r.alerts, r.server.name))


def rank(state: str, alerts: list[str], name: str) -> tuple[int, bool, str]:
    """A server's place in the fleet's order (ranked())."""
    return STATE_ORDER.get(state, 9), not alerts, name


def with_figures(rows: list[FleetRow], conditions: bool, now: datetime) -> None:
    """The figures of now of these rows, read for all of them in the same few statements whatever their number."""
    latest = newest([r.server.pk for r in rows])
    for row in rows:
        sid, mine = row.server.pk, latest[row.server.pk]
        row.top_wait = reads.top_wait_of(mine, sid, conditions)
        row.tps, row.history = _value(mine, sid, reads.TPS), _value(mine, sid, reads.HISTORY)
        row.cpu_busy, row.replica = _value(mine, sid, host_series.BUSY), replica_now(mine, sid)
        row.at = reading_times(mine, sid, row.top_wait)
        row.waits_off = instruments_off(mine, sid)
        row.old = old_figures(row.at, now, stale_limit(row.server))
    # The trend's reach, every poll (1 s polls: 600 points), as the purge page reads it: up to the
    # newest history reading where that is older than the page's "now". Every server in one read.
    history = reads.recent_windows({r.server.pk: r.at["history"] if "history" in r.old else now for r in rows},
                                   reads.HISTORY, REACH, points=1200)
    for row in rows:
        with_trend(row, history.get(row.server.pk))


def newest(server_ids: list[int]) -> dict[int, dict[tuple[int, str], tuple[datetime, float]]]:
    """Each server's newest readings of the row's figures, in one store read (every server given has its dict),
    keyed (server id, metric) as store.query.latest gives them: a row looks only at its own."""
    found = query.latest_by_server(server_ids, FIGURES) if server_ids else {}
    return {sid: {(sid, m): v for m, v in found.get(sid, {}).items()} for sid in server_ids}


def reading_times(latest: dict, server_id: int, top_wait: reads.TopWait | None) -> dict[str, datetime]:
    """When each figure of the row was read: the poll its value comes from (CPU busy: node_exporter's, which
    fails on its own while the server answers)."""
    found = {"tps": latest.get((server_id, reads.TPS)), "history": latest.get((server_id, reads.HISTORY)),
             "top_wait": latest.get((server_id, TIME_PREFIX + top_wait.event)) if top_wait else None,
             "cpu": latest.get((server_id, host_series.BUSY))}
    return {name: reading[0] for name, reading in found.items() if reading}


def instruments_off(latest: dict, server_id: int) -> str:
    """The wait families whose instruments the newest poll found off: their waits cannot be the top wait."""
    found = []
    for family, off_gauge, all_gauge in INSTRUMENTS:
        off = _value(latest, server_id, off_gauge)
        if off:
            found.append(f"{off:.0f} of {_value(latest, server_id, all_gauge) or off:.0f} {family}/%")
    return " and ".join(found)


def old_figures(at: dict[str, datetime], now: datetime, limit: timedelta) -> dict[str, str]:
    """The figures read longer ago than the server may go unpolled before it is stale: not "now" any more."""
    old = {name: f"at {t.astimezone(UTC):%H:%M:%S} UTC ({ago(now - t)} ago)" for name, t in at.items()
           if now - t > limit}
    if "history" in old:
        old["trend"] = old["history"]  # fitted up to that same reading
    return old


def with_trend(row: FleetRow, history) -> None:
    """The trend up to the newest history reading (history: read up to it when it is older than the page's read)."""
    row.trend = trend_after_hole(history.ts, history.values) if history else FleetTrend(
        None, why=f"no history length polled in the last {REACH.seconds // 60} min")
    row.history_per_min = row.trend.per_minute
    row.trend_note = trend_note(row.trend, row.server.poll_interval)


def trend_after_hole(ts: Sequence[datetime], values: Sequence[float | None]) -> FleetTrend:
    """The slope of the current segment: since the last turning point, or the last hole in polling.

    The store marks each hole (store.breaks.cuts on the poll times) with a None between the polls around it.
    """
    trend = current_trend(ts, values)
    after = trend.since if trend.after_hole else None
    if trend.per_second is None:
        return FleetTrend(None, since_hole=after, why=too_few(trend, after))
    return FleetTrend(_per_minute(trend), trend.window, after, since=trend.since)


def too_few(trend: Trend, after: datetime | None) -> str:
    polls = trend.polls
    where = (f"since polling resumed at {after.astimezone(UTC):%H:%M:%S} UTC after a gap" if after
             else f"since the turn at {trend.since.astimezone(UTC):%H:%M:%S} UTC" if trend.since
             else f"in the last {fmt_span(REACH)}")
    return f"{polls} poll{'' if polls == 1 else 's'} {where}: too few to fit a trend (at least {MIN_POLLS})"


def trend_note(trend: FleetTrend, poll_interval: int) -> str:
    """Said beside the trend: over what and since when it holds (the turning point or the resumed polling)."""
    if trend.per_minute is None or trend.since is None:
        return ""
    note = f"over {fmt_span(trend.span)}"
    if trend.since_hole:
        return note + f", since polling resumed at {trend.since_hole.astimezone(UTC):%H:%M:%S} UTC"
    return note + f", since {trend.since.astimezone(UTC):%H:%M:%S} UTC"


def _per_minute(trend: Trend | None) -> float | None:
    """The recent history trend a minute, 0 when flat (so the page says so)."""
    if trend is None or trend.per_minute is None:
        return None
    return 0.0 if trend.direction == "flat" else trend.per_minute


def _value(latest: dict, server_id: int, metric: str) -> float | None:
    found = latest.get((server_id, metric))
    return found[1] if found else None
