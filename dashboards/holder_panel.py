"""The purge page's holders block: oldest-transaction age beside history length, and who held it."""

from dataclasses import dataclass
from datetime import datetime, timedelta

from collectors.models import TrxHolder
from dashboards import reads
from dashboards.figures.holders import HolderSpan, oldest_trx_figure
from dashboards.links import chart_csv, exact_param, link
from dashboards.timerange import TimeRange
from servers.models import Server

CHART_ID = "oldest-trx-chart"


@dataclass(frozen=True)
class HolderRow:
    """One holder as the table shows it: held from its start to the last poll that saw it.

    Nothing was observed after that poll: the first poll without it (ended_at) says when it was
    found gone, not when it ended, and after an outage that can be hours later.
    """

    holder: TrxHolder
    at_least: bool  # it may have been held longer: no poll within about an interval found it gone

    @property
    def until(self) -> datetime:
        return self.holder.seen_at

    @property
    def gone_by(self) -> datetime | None:
        return self.holder.ended_at

    @property
    def ongoing(self) -> bool:
        return self.holder.ended_at is None

    @property
    def held_for(self) -> timedelta:
        return self.holder.seen_at - self.holder.started_at


def holder_rows(holders: list[TrxHolder]) -> list[HolderRow]:
    intervals = dict(Server.objects.filter(pk__in={h.server_id for h in holders}).values_list("pk", "poll_interval"))
    return [HolderRow(h, h.end_unseen(intervals[h.server_id])) for h in holders]


def span_label(row: HolderRow) -> str:
    return f"thread {row.holder.thread_id} {row.holder.who}"


def holders_csv(server_id: int, tr: TimeRange) -> str:
    return link("export-holders", query={"server": server_id, "from": exact_param(tr.start),
                                               "to": exact_param(tr.end)})


SERIES = [reads.OLDEST_TRX, reads.READ_VIEW]


def holders_context(server_id: int, tr: TimeRange, points: int, history, read: dict | None = None) -> dict:
    """The figure (to merge into the page's figures), the table rows and their CSV links.

    read: the page's series_map() of the range, when it read SERIES with its own lines (one store read).
    """
    found = {m: s for m, s in (read if read is not None else reads.series_map(server_id, SERIES, tr, points)).items()
             if m in SERIES}
    rows = holder_rows(reads.holders_in(server_id, tr.start, tr.end))
    spans = [HolderSpan(max(r.holder.started_at, tr.start), min(r.until, tr.end), span_label(r)) for r in rows]
    figure = oldest_trx_figure(history, found.get(reads.OLDEST_TRX) or reads.Empty(), found.get(reads.READ_VIEW),
                               spans)
    return {"holder_figure": {CHART_ID: figure}, "holders": rows, "holders_csv": holders_csv(server_id, tr),
            "oldest_csv": chart_csv(server_id, [reads.HISTORY, reads.OLDEST_TRX, reads.READ_VIEW], tr, points),
            "oldest_trx_on": bool(found)}
