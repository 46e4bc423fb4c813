"""A dip on a range's first point, from polls written through the store.

A point's rate covers the span since the poll before it, so a dip starts at the point before its first low one.
The range's first point has none before it in the line: the dip started where that poll's delta began (ts - its
interval; a rollup bucket's start). Starting it at the point itself listed it as 0 s ("02:12:25 02:12:25 0 s"
for a poll whose delta covers 02:12:15.6 to 02:12:25.6: by hand 10 s).
"""

from datetime import timedelta

import pytest

from dashboards.analysis.points import first_began, outage_ends
from dashboards.analysis.run_verdict import judge_lines
from dashboards.analysis.stability import find_dips
from servers.models import Run
from store import query
from store.ingest import write_samples
from store.sample import Sample
from testing.dashboards import RECENT_T0, T0, make_server

pytestmark = pytest.mark.django_db

TPS, LOW = 500, 100  # per second; the dip threshold is half the median: 250


def status_polls(server_id: int, offsets: list[float], low: set[float]) -> list[Sample]:
    """global_status polls at these offsets (s from RECENT_T0), each delta since the poll before at TPS a second,
    LOW at the offsets in `low`; the first carries no delta, as collectors.delta stores it."""
    out = [Sample(server_id, "global_status", RECENT_T0 + timedelta(seconds=offsets[0]), None, {"Threads_running": 4})]
    for before, at in zip(offsets, offsets[1:], strict=False):
        seconds = at - before
        rate = LOW if at in low else TPS
        out.append(Sample(server_id, "global_status", RECENT_T0 + timedelta(seconds=at), seconds,
                          {"tps": round(rate * seconds), "Threads_running": 4}, frozenset({"tps"})))
    return out


def every_10s(first: float, last: float) -> list[float]:
    return [first + 10 * k for k in range(int((last - first) // 10) + 1)]


def at(offset: float) -> str:
    return f"{RECENT_T0 + timedelta(seconds=offset):%H:%M:%S}"


def test_a_dip_on_the_ranges_first_poll_starts_where_its_delta_began():
    # Polls at 5.6, 15.6, ..., 295.6; the range starts at 20: its first poll, 25.6, covers (15.6, 25.6].
    server = make_server("first")
    write_samples(status_polls(server.pk, every_10s(5.6, 295.6), low={25.6, 105.6}))
    tps = query.series([server.pk], ["tps"], RECENT_T0 + timedelta(seconds=20), RECENT_T0 + timedelta(seconds=300))[0]
    dips = find_dips(tps.ts, tps.values, TPS / 2, resumed=outage_ends(tps), first_began=first_began(tps))
    assert [((d.start - RECENT_T0).total_seconds(), (d.end - RECENT_T0).total_seconds(), d.seconds)
            for d in dips] == [(15.6, 25.6, 10), (95.6, 105.6, 10)]  # before: (25.6, 25.6, 0) first


def test_a_line_sliced_past_its_first_point_does_not_take_its_start():
    server = make_server("sliced")
    write_samples(status_polls(server.pk, every_10s(5.6, 95.6), low=set()))
    tps = query.series([server.pk], ["tps"], RECENT_T0, RECENT_T0 + timedelta(seconds=100))[0]
    assert first_began(tps) == RECENT_T0 + timedelta(seconds=5.6)  # 15.6's delta: its first is the first poll's
    assert first_began(type("Line", (), {"ts": tps.ts[1:], "values": tps.values[1:], "began": tps.began})) is None


def dips_table_first_row(body: str) -> list[str]:
    table = body.split('<table class="dips">')[1].split("</table>")[0]
    row = table.split("<tbody>")[1].split("</tr>")[0]
    return [c.split(">", 1)[1].split("</td>")[0] for c in row.split("<td")[1:4]]


def test_the_stability_page_lists_a_dip_on_the_first_poll_as_its_interval(admin_client):
    server = make_server("page-first")
    write_samples(status_polls(server.pk, every_10s(5.6, 295.6), low={25.6}))
    start, end = RECENT_T0 + timedelta(seconds=20), RECENT_T0 + timedelta(seconds=300)
    body = admin_client.get(f"/servers/{server.pk}/stability/",
                            {"from": f"{start:%Y-%m-%dT%H:%M:%SZ}", "to": f"{end:%Y-%m-%dT%H:%M:%SZ}"}).content.decode()
    date = f"{RECENT_T0:%Y-%m-%d}"
    assert dips_table_first_row(body) == [f"{date} {at(15.6)}", at(25.6), "10 s"]  # before: 25, 25, 0 s


def test_a_run_report_lists_a_dip_on_the_runs_first_poll_as_its_interval(admin_client):
    # The run starts at 15.6 with a 20 s warm-up (set: a low first poll would read as one): its figures start at
    # 35.6, and their first poll is 45.6, covering (35.6, 45.6].
    server = make_server("run-first")
    write_samples(status_polls(server.pk, every_10s(5.6, 295.6), low={45.6}))
    run = Run.objects.create(name="low start", server=server, started_at=RECENT_T0 + timedelta(seconds=15.6),
                             ended_at=RECENT_T0 + timedelta(seconds=295.6), warmup_seconds=20)
    dips = admin_client.get(f"/runs/{run.pk}/report/").context["dips"]
    assert [((d.start - RECENT_T0).total_seconds(), d.seconds) for d in dips] == [(35.6, 10)]  # before: 45.6, 0


def test_a_dip_in_the_first_minute_rollup_covers_that_bucket(admin_client):
    # Polls every 10 s from RECENT_T0 + 1 h; those of its first minute (deltas at :10 to :50) are low. A 24-hour
    # range reads minute rollups: the line's first point is that bucket, low from its start to its end.
    server = make_server("rolled-first")
    first = 3600
    write_samples(status_polls(server.pk, every_10s(first, first + 1800), low=set(every_10s(first + 10, first + 50))))
    start, end = RECENT_T0, RECENT_T0 + timedelta(hours=24)
    response = admin_client.get(f"/servers/{server.pk}/stability/",
                                {"from": f"{start:%Y-%m-%dT%H:%M:%SZ}", "to": f"{end:%Y-%m-%dT%H:%M:%SZ}"})
    assert response.context["pixel"] >= timedelta(minutes=1)  # the chart reads minute rollups
    dips = [((d.start - RECENT_T0).total_seconds(), d.seconds) for d, _ in response.context["dips"]]
    assert dips == [(first, 60)]  # before: (first + 60, 0)


def test_a_hand_made_rollup_line_starts_a_first_dip_at_its_bucket():
    # Rollup points: a bucket's min at its start, its max half-way; the first bucket 12:00-12:01 is low.
    ts = [T0 + timedelta(minutes=m, seconds=s) for m, s in ((0, 0), (1, 0), (2, 0))]
    dips = find_dips(ts, [15.6, 1000, 1000], 500, timedelta(minutes=1))
    assert [(d.start, d.end) for d in dips] == [(T0, T0 + timedelta(minutes=1))]  # before: (12:01, 12:01)



def test_the_verdict_counts_a_dip_on_the_first_polls_from_where_the_first_delta_began():
    # The range starts at 20: its first poll, 25.6, covers (15.6, 25.6]; it and 35.6 are low. The dip is 15.6 to
    # 35.6, 20 s.
    server = make_server("verdict-first")
    write_samples(status_polls(server.pk, every_10s(5.6, 295.6), low={25.6, 35.6}))
    tps = query.series([server.pk], ["tps"], RECENT_T0 + timedelta(seconds=20), RECENT_T0 + timedelta(seconds=300))[0]
    verdict = judge_lines(tps, [], warmup=0)
    # before: 25.6, 10 s
    assert [((d.start - RECENT_T0).total_seconds(), d.seconds) for d in verdict.dips] == [(15.6, 20)]


def test_the_verdict_counts_a_dip_on_the_first_polls_after_a_warm_up_from_the_poll_before():
    # A warm-up of one poll given (25.6): the polls judged start at 35.6; it and 45.6 are low, 25.6-45.6, 20 s.
    server = make_server("verdict-warm")
    write_samples(status_polls(server.pk, every_10s(5.6, 295.6), low={35.6, 45.6}))
    tps = query.series([server.pk], ["tps"], RECENT_T0 + timedelta(seconds=20), RECENT_T0 + timedelta(seconds=300))[0]
    verdict = judge_lines(tps, [], warmup=1)
    # before: 35.6, 10 s
    assert [((d.start - RECENT_T0).total_seconds(), d.seconds) for d in verdict.dips] == [(25.6, 20)]
