"""The dips table of a range whose TPS changed level: each level judged against its own median, as the verdict
judges it, so a lower level's noise is no dip of the whole range.

Seen live: sysbench --rate 120 for 2 minutes, then 300 for 2 (3 s polls); the run report's threshold, half the
run's median (246.6), was 123.3, and it listed ten "dips" that were the 120 level's noise."""

import re
from datetime import UTC, datetime, timedelta

import pytest

from dashboards.analysis.run_verdict import judge, table_threshold
from dashboards.analysis.stability import find_dips
from dashboards.figures.stability import stability_figure
from servers.models import Run
from store.ingest import write_samples
from store.sample import Sample
from testing.dashboards import Pts
from testing.servers import make_server

T0 = datetime(2026, 3, 2, 9, tzinfo=UTC)
# 40 polls at 115 and 125 in turn (median 120), then 20 at 235 and 245 in turn, a stall of 3 polls at 0, and 30
# more at 235 and 245 (median 235 with the stall's 0s: the 27th of 53). Every 3 s.
TPS = ([115.0, 125.0] * 20) + ([235.0, 245.0] * 10) + [0.0] * 3 + ([235.0, 245.0] * 15)
# The whole range's median, the 47th of the 93 sorted (3 zeros and the 40 low polls below it), is 235: half of
# it, 117.5, lies between 115 and 125, and each of the 20 polls at 115 read as a dip of its own.


def at(i: int) -> datetime:
    return T0 + timedelta(seconds=3 * i)


def test_a_lower_levels_noise_is_no_dip_only_the_stall_is():
    ts = [at(i) for i in range(len(TPS))]
    verdict = judge(ts, TPS)
    assert [s.at for s in verdict.shifts] == [at(40)]
    # Half of each level's median: 60 up to the change, 117.5 from it.
    threshold = table_threshold(Pts(ts, TPS), verdict, 117.5)
    assert threshold == [(at(0), 60.0), (at(40), 117.5)]
    # The stall's polls are 60 to 62; its dip starts at the poll before it (each rate covers the 3 s before it).
    dips = find_dips(ts, TPS, threshold)
    assert [(d.start, d.end, d.lowest) for d in dips] == [(at(59), at(62), 0.0)]


def test_the_charts_threshold_steps_at_the_level_change():
    ts = [at(i) for i in range(len(TPS))]
    fig = stability_figure(Pts(ts, TPS), [], [], dip_threshold=[(at(0), 60.0), (at(40), 117.5)])
    drawn = next(trace for trace in fig["data"] if trace["name"] == "dip threshold")
    ms = [round(at(i).timestamp() * 1000) for i in (0, 40, 40, 92)]  # the figures' times: Unix milliseconds
    assert list(drawn["x"]) == ms
    assert list(drawn["y"]) == [60.0, 60.0, 117.5, 117.5]


def test_one_level_keeps_the_whole_ranges_threshold():
    flat = [115.0, 125.0] * 20
    ts = [at(i) for i in range(len(flat))]
    assert table_threshold(Pts(ts, flat), judge(ts, flat), 60.0) == 60.0


def recent(n: int) -> tuple[datetime, list[datetime]]:
    """A start 10 minutes ago and n polls 3 s apart after it (each 0.3 s past a whole second)."""
    start = datetime.now(UTC).replace(microsecond=0) - timedelta(minutes=10)
    return start, [start + timedelta(seconds=3 * i + 0.3) for i in range(1, n + 1)]


def dips_part(body: str) -> tuple[str, int]:
    """The dips section's heading, as text, and the number of rows in its table."""
    part = body.split('id="dips"')[1].split("</section>")[0]
    heading = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", part.split("</h2>")[0])).strip(" >")
    return heading, part.count("<tr><td>")


def test_the_stability_page_and_the_run_report_list_only_the_stall(admin_client, db):
    server = make_server("levels")
    start, polls = recent(len(TPS))
    write_samples([Sample(server.pk, "global_status", t, 3.0, {"tps": round(rate * 3)}, frozenset({"tps"}))
                   for t, rate in zip(polls, TPS, strict=True)])
    page = admin_client.get(f"/servers/{server.pk}/stability/", {
        "from": f"{start:%Y-%m-%dT%H:%M:%S}", "to": f"{polls[-1] + timedelta(seconds=1):%Y-%m-%dT%H:%M:%S}",
    }).content.decode()
    heading, rows = dips_part(page)
    assert heading == ("Dips: TPS under 50.0 % of its level's median (under 60.0, then 117.5 TPS: TPS changed level), "
                       "and stalls with no polls")
    assert rows == 1
    assert f"<tr><td>{polls[59]:%Y-%m-%d %H:%M:%S}</td><td>{polls[62]:%H:%M:%S}</td>" in page
    run = Run.objects.create(name="levels", server=server, started_at=start, ended_at=polls[-1])
    report = admin_client.get(f"/runs/{run.pk}/report/").content.decode()
    heading, rows = dips_part(report)
    assert "(under 60.0, then 117.5 TPS: TPS changed level)" in heading
    assert rows == 1
    assert f"<tr><td>{polls[59]:%Y-%m-%d %H:%M:%S}</td><td>{polls[62]:%H:%M:%S}</td>" in report


def stalls_on_two_levels() -> list[float]:
    """100 TPS for 48 polls, then 300 for 120 (10 s polls), with a stall of 3 polls at 0 every 12 from the 7th: the
    verdict reads periodic dips every 120 s (14), judged per level. The range's median is 300: 78 of its 168 polls
    are 100 (36) or 0 (42)."""
    values = [100.0] * 48 + [300.0] * 120
    for k in range(6, 168, 12):
        values[k:k + 3] = [0.0] * 3
    return values


def every_10_s(n: int) -> list[datetime]:
    return [T0 + timedelta(seconds=10 * i) for i in range(n)]


def test_a_periodic_verdict_keeps_the_thresholds_of_the_levels_it_judged_its_dips_by():
    """Periodic dips clear the level changes from the verdict: the table fell back on half the range's median,
    150, and listed the whole first level as a dip. By hand: half of 100 up to the 49th poll, half of 300 after."""
    values = stalls_on_two_levels()
    ts = every_10_s(len(values))
    verdict = judge(ts, values)
    assert verdict.kind == "periodic" and verdict.period == pytest.approx(120.0) and len(verdict.dips) == 14
    threshold = table_threshold(Pts(ts, values), verdict, 150.0)
    assert threshold == [(ts[0], 50.0), (ts[48], 150.0)]
    # Each stall alone: from the poll before it to its last poll.
    assert [(d.start, d.end) for d in find_dips(ts, values, threshold)] == [(ts[k - 1], ts[k + 2])
                                                                          for k in range(6, 168, 12)]


def test_a_dip_across_a_level_change_is_one_a_level():
    """Two polls at 40 ending the 100 level (under its 50), two at 100 starting the 300 level (under its 150): the
    verdict judges each level's dips apart (level_dips), the later one from the poll before its first."""
    values = [100.0] * 46 + [40.0, 40.0, 100.0, 100.0] + [300.0] * 70
    ts = every_10_s(len(values))
    dips = find_dips(ts, values, [(ts[0], 50.0), (ts[48], 150.0)])
    assert [(d.start, d.end, d.lowest) for d in dips] == [(ts[45], ts[47], 40.0), (ts[47], ts[49], 100.0)]


def test_the_stability_page_lists_each_periodic_stall_by_its_levels_threshold(admin_client, db):
    server = make_server("periodic-levels")
    values = stalls_on_two_levels()
    start = datetime.now(UTC).replace(microsecond=0) - timedelta(minutes=30)
    polls = [start + timedelta(seconds=10 * i + 0.3) for i in range(1, len(values) + 1)]
    write_samples([Sample(server.pk, "global_status", t, 10.0, {"tps": round(rate * 10)}, frozenset({"tps"}))
                   for t, rate in zip(polls, values, strict=True)])
    page = admin_client.get(f"/servers/{server.pk}/stability/", {
        "from": f"{start:%Y-%m-%dT%H:%M:%S}", "to": f"{polls[-1] + timedelta(seconds=1):%Y-%m-%dT%H:%M:%S}",
    }).content.decode()
    heading, rows = dips_part(page)
    assert heading == ("Dips: TPS under 50.0 % of its level's median (under 50.0, then 150.0 TPS: TPS changed level), "
                       "and stalls with no polls")
    assert rows == 14  # the stalls alone; before, the first level's 100s were dips too, one row with its stalls
