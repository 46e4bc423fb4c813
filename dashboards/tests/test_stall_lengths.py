"""How long a stall with no polls is listed, from polls written through the store.

A hole runs from the last poll before it to the first poll after it, the one whose read ended the
outage. A counter's rate line leaves that poll out (its delta spans the hole: an average over the
outage), so the point after the hole is the next poll: ending the stall there listed it one poll
interval too long ("30 s, :10-:40" for one missed 10 s poll, by hand :10-:30 = 20 s).
"""

from datetime import timedelta

import pytest

from dashboards import reads
from dashboards.analysis.points import outage_ends
from dashboards.analysis.run_verdict import judge_lines
from dashboards.analysis.stability import Dip, find_dips, line_dips, merge_close, with_outages
from dashboards.timerange import TimeRange
from servers.models import Run
from store import levels, query
from store.ingest import write_samples
from store.sample import Sample
from testing.dashboards import RECENT_T0, make_server

pytestmark = pytest.mark.django_db

TPS = 500  # per second at every poll that measured one


def status_polls(server_id: int, offsets: list[int], restart_at: int | None = None) -> list[Sample]:
    """global_status polls at these offsets (s from RECENT_T0), each delta since the poll before at TPS a second;
    the first, and the poll that found a restart (`restart_at`), carry no delta, as collectors.delta stores them."""
    out, previous = [], None
    for at in offsets:
        ts = RECENT_T0 + timedelta(seconds=at)
        if previous is None or at == restart_at:
            out.append(Sample(server_id, "global_status", ts, None, {"Threads_running": 4}))
        else:
            seconds = at - previous
            out.append(Sample(server_id, "global_status", ts, float(seconds),
                              {"tps": TPS * seconds, "Threads_running": 4}, frozenset({"tps"})))
        previous = at
    return out


def every_10s_but(missed: set[int], end: int = 300) -> list[int]:
    return [s for s in range(0, end + 1, 10) if s not in missed]


def stalls(server_id: int, start: int = 0, end: int = 300) -> list[tuple[float, float, float]]:
    """The dips of the stability page's TPS line over the range: (start, end) as offsets from RECENT_T0, seconds."""
    tps = query.series([server_id], ["tps"], RECENT_T0 + timedelta(seconds=start),
                       RECENT_T0 + timedelta(seconds=end), max_points=1200)[0]
    dips = line_dips(tps, TPS / 2)
    return [((d.start - RECENT_T0).total_seconds(), (d.end - RECENT_T0).total_seconds(), d.seconds) for d in dips]


def first_dip_row(client, server, start: int, end: int) -> tuple[list[str], str]:
    """The first row of the stability page's dips table over start..end (offsets from RECENT_T0, seconds): its
    first three cells (from, to, length) and the row's HTML."""
    body = client.get(f"/servers/{server.pk}/stability/", {
        "from": f"{RECENT_T0 + timedelta(seconds=start):%Y-%m-%dT%H:%M:%SZ}",
        "to": f"{RECENT_T0 + timedelta(seconds=end):%Y-%m-%dT%H:%M:%SZ}"}).content.decode()
    table = body.split('<table class="dips">')[1].split("</table>")[0]
    row = table.split("<tbody>")[1].split("</tr>")[0]
    return [c.split(">", 1)[1].split("</td>")[0] for c in row.split("<td")[1:4]], row


@pytest.mark.parametrize(("missed", "expected"), [
    ({100}, (90, 110, 20)),  # polls at 90 and 110, none at 100: 20 s
    ({100, 110}, (90, 120, 30)),
    ({100, 110, 120, 130, 140}, (90, 150, 60)),
])
def test_a_hole_of_missed_polls_runs_from_the_last_poll_before_to_the_first_after(missed, expected):
    server = make_server("missed")
    write_samples(status_polls(server.pk, every_10s_but(missed)))
    assert stalls(server.pk) == [expected]  # before: 30, 40 and 70 s, ending a poll after the first one back


def test_a_restart_without_a_missed_poll_is_a_stall_of_the_interval_the_reset_poll_lost():
    # Polls every 10 s; the one at 100 found the server restarted: no delta, so TPS over (90, 100] is unknown,
    # and the poll at 110 measured (100, 110] again.
    server = make_server("restarted")
    write_samples(status_polls(server.pk, every_10s_but(set()), restart_at=100))
    assert stalls(server.pk) == [(90, 100, 10)]  # before: (90, 110, 20)


def test_a_restart_after_missed_polls_ends_the_stall_at_the_poll_that_found_it():
    # Nothing at 100 and 110 (the server down), the poll at 120 found it restarted, 130 measured (120, 130].
    server = make_server("down-restarted")
    write_samples(status_polls(server.pk, every_10s_but({100, 110}), restart_at=120))
    assert stalls(server.pk) == [(90, 120, 30)]  # before: (90, 130, 40)


def test_a_range_that_starts_in_a_hole_lists_it_from_the_last_poll_before():
    # The range starts at 95: the first poll in it, at 110, spans the hole (90, 110] and is left out of the line,
    # which starts at 120. Its delta says where the outage began: 110 - 20 s = 90.
    server = make_server("edge")
    write_samples(status_polls(server.pk, every_10s_but({100})))
    assert stalls(server.pk, start=95) == [(90, 110, 20)]  # before: none
    assert stalls(server.pk, start=80) == [(90, 110, 20)]
    assert stalls(server.pk, start=105) == [(90, 110, 20)]  # before: none
    # A range starting at a poll that found a restart (it stores no delta): the line starts at the next poll, a
    # good reading of (100, 110]; nothing in the range was lost.
    restarted = make_server("edge-restart")
    write_samples(status_polls(restarted.pk, every_10s_but(set()), restart_at=100))
    assert stalls(restarted.pk, start=95) == []


def test_the_stability_page_lists_a_hole_at_the_ranges_start(admin_client):
    server = make_server("page-start")
    write_samples(status_polls(server.pk, every_10s_but({100, 110})))
    cells, row = first_dip_row(admin_client, server, 95, 300)
    at = RECENT_T0 + timedelta(seconds=90)
    assert cells == [f"{at:%Y-%m-%d %H:%M:%S}", f"{at + timedelta(seconds=30):%H:%M:%S}", "30 s"]  # before: no row
    assert "no polls: outage or restart" in row


def test_a_range_that_ends_at_the_poll_after_a_hole_lists_it():
    # The range ends at 110 (or 115): its last poll, 110, ended the outage (90, 110]; its delta spans it, so the
    # line ends at 90, with no point after the hole to mark it.
    server = make_server("edge-end")
    write_samples(status_polls(server.pk, every_10s_but({100})))
    assert stalls(server.pk, end=110) == [(90, 110, 20)]  # before: none
    assert stalls(server.pk, end=115) == [(90, 110, 20)]  # before: none
    assert stalls(server.pk, end=120) == [(90, 110, 20)]


def test_a_range_that_ends_at_a_poll_on_time_with_no_delta_lists_no_hole():
    # Polls every 10 s; the one at 300 carries TPS's counter with no interval (no delta a rate could use), on time:
    # nothing was missed. Mid-line such a poll is no hole; at the range's end neither.
    server = make_server("edge-end-unknown")
    polls = status_polls(server.pk, every_10s_but(set(), end=290))
    polls.append(Sample(server.pk, "global_status", RECENT_T0 + timedelta(seconds=300), None,
                        {"tps": TPS * 10, "Threads_running": 4}, frozenset({"tps"})))
    write_samples(polls)
    assert stalls(server.pk, end=300) == []  # before: (290, 300, 10), a phantom stall
    assert query.outages(server.pk, "tps", RECENT_T0, RECENT_T0 + timedelta(seconds=300)) == []


def test_the_stability_page_lists_a_hole_at_the_ranges_end(admin_client):
    server = make_server("page-end")
    write_samples(status_polls(server.pk, every_10s_but({100, 110})))
    cells, row = first_dip_row(admin_client, server, 0, 120)
    at = RECENT_T0 + timedelta(seconds=90)
    assert cells == [f"{at:%Y-%m-%d %H:%M:%S}", f"{at + timedelta(seconds=30):%H:%M:%S}", "30 s"]  # before: no row
    assert "no polls: outage or restart" in row


def test_two_stalls_either_side_of_one_good_poll_stay_two_at_any_zoom():
    # Missed at 100; 110 back (its delta spans the hole), 120 a good reading of (110, 120]; missed at 130.
    server = make_server("flapping")
    write_samples(status_polls(server.pk, every_10s_but({100, 130})))
    tps = query.series([server.pk], ["tps"], RECENT_T0, RECENT_T0 + timedelta(seconds=300))[0]
    dips = merge_close(find_dips(tps.ts, tps.values, TPS / 2, resumed=outage_ends(tps)), timedelta(seconds=36))
    # A 6-hour chart's two pixels (36 s) are wider than the good reading between them: still two "no polls" rows.
    assert [((d.start - RECENT_T0).total_seconds(), (d.end - RECENT_T0).total_seconds()) for d in dips] == [
        (90, 110), (120, 140)]


def test_two_stalls_with_good_polls_between_stay_two_rows_on_a_wide_range():
    # Missed at 100 and 140: 110 back (its delta spans the hole), 120 and 130 good readings, 150 back again.
    server = make_server("two-outages")
    write_samples(status_polls(server.pk, every_10s_but({100, 140})))
    tps = query.series([server.pk], ["tps"], RECENT_T0, RECENT_T0 + timedelta(seconds=300))[0]
    dips = merge_close(find_dips(tps.ts, tps.values, TPS / 2, resumed=outage_ends(tps)), timedelta(seconds=36))
    # A 6-hour chart's two pixels (36 s) span both, but 110-130 was polled: two outages, 90-110 and 130-150.
    assert [((d.start - RECENT_T0).total_seconds(), d.seconds, d.stalled) for d in dips] == [
        (90, 20, True), (130, 20, True)]  # before: one "no polls" row 90-150, 60 s


def test_the_verdict_counts_a_stall_from_the_last_poll_before_to_the_first_after():
    # 10 s polls, two missed (at 100 and 110): the verdict's stall is 90-120, 30 s.
    server = make_server("verdict")
    write_samples(status_polls(server.pk, every_10s_but({100, 110})))
    tps = query.series([server.pk], ["tps"], RECENT_T0, RECENT_T0 + timedelta(seconds=300))[0]
    verdict = judge_lines(tps, [], warmup=0)
    assert [(d.start - RECENT_T0, d.seconds) for d in verdict.dips] == [(timedelta(seconds=90), 30)]


def test_the_stability_page_lists_one_missed_poll_as_20_seconds(admin_client):
    server = make_server("page")
    write_samples(status_polls(server.pk, every_10s_but({100})))
    cells, row = first_dip_row(admin_client, server, 0, 300)
    at = RECENT_T0 + timedelta(seconds=90)
    assert cells == [f"{at:%Y-%m-%d %H:%M:%S}", f"{at + timedelta(seconds=20):%H:%M:%S}", "20 s"]
    assert "no polls: outage or restart" in row


def test_a_run_report_lists_three_missed_polls_as_40_seconds(admin_client):
    # Polls every 10 s, none at 100, 110 and 120: the hole runs from 90 to 130, 40 s.
    server = make_server("run")
    write_samples(status_polls(server.pk, every_10s_but({100, 110, 120})))
    run = Run.objects.create(name="with a hole", server=server, started_at=RECENT_T0,
                             ended_at=RECENT_T0 + timedelta(seconds=300), warmup_seconds=0)
    dips = admin_client.get(f"/runs/{run.pk}/report/").context["dips"]
    assert [(d.start - RECENT_T0, d.seconds, d.stalled) for d in dips] == [(timedelta(seconds=90), 40, True)]


def test_a_short_outage_on_a_day_long_chart_is_listed_with_its_length(admin_client):
    # Polls every 10 s from 1 h on, for 30 minutes, none at 1 h 10 min and 10 s later: the hole runs from the poll
    # at 1 h 9 min 50 s to the one at 1 h 10 min 20 s, 30 s. A 24-hour range reads minute rollups, whose buckets
    # all hold a reading: the polls, still kept, say where the outage was. None from 1 h 20 min to 1 h 25 min
    # either: 1 h 19 min 50 s to 1 h 25 min 10 s, 320 s, which the buckets with no poll (1 h 20 min to 1 h 25 min)
    # put at 300 s.
    server = make_server("rolled-short")
    first = 3600
    missed = {first + 600, first + 610, *range(first + 1200, first + 1501, 10)}
    write_samples(status_polls(server.pk, [s for s in range(first, first + 1801, 10) if s not in missed]))
    start, end = RECENT_T0, RECENT_T0 + timedelta(hours=24)
    response = admin_client.get(f"/servers/{server.pk}/stability/",
                                {"from": f"{start:%Y-%m-%dT%H:%M:%SZ}", "to": f"{end:%Y-%m-%dT%H:%M:%SZ}"})
    assert response.context["pixel"] >= timedelta(minutes=1)  # the chart reads minute rollups
    dips = [((d.start - RECENT_T0).total_seconds(), d.seconds, d.stalled) for d, _ in response.context["dips"]]
    assert dips == [(first + 590, 30, True), (first + 1190, 320, True)]  # before: only (first + 1200, 300, True)


def test_an_outage_overlapping_two_dips_joins_them_in_one_row():
    # Low minutes 0-2 min (lowest 100) and 5-7 min (lowest 50); the polls had an outage from 1 min 30 s to 5 min 30 s,
    # which both dips overlap: one stall from 0 to 7 min, lowest 50.
    at = [RECENT_T0 + timedelta(seconds=s) for s in (0, 120, 300, 420, 90, 330)]
    dips = with_outages([Dip(at[0], at[1], 100.0), Dip(at[2], at[3], 50.0)], [(at[4], at[5])])
    assert dips == [Dip(at[0], at[3], 50.0, stalled=True)]  # before: 0-5 min 30 s and 5-7 min, overlapping


def test_a_range_starting_past_the_polls_retention_lists_the_outages_of_its_kept_polls():
    # 10 s polls from RECENT_T0 for an hour, none at 600 and 610 s (590-620 s), none from 1200 to 1500 s (1190-1510 s).
    # The range starts a day before the oldest kept poll can be: its kept part still holds both outages.
    server = make_server("past-retention")
    missed = {600, 610, *range(1200, 1501, 10)}
    write_samples(status_polls(server.pk, [s for s in range(0, 3601, 10) if s not in missed]))
    tr = TimeRange(levels.available_since(levels.FULL) - timedelta(days=1), RECENT_T0 + timedelta(hours=1))
    assert [((a - RECENT_T0).total_seconds(), (b - RECENT_T0).total_seconds())
            for a, b in reads.poll_outages(server.pk, tr)] == [(590, 620), (1190, 1510)]  # before: none


def verdict_stalls(verdict) -> list[tuple[float, float, bool]]:
    return [((d.start - RECENT_T0).total_seconds(), d.seconds, d.stalled) for d in verdict.dips]


def test_the_verdict_judges_an_outage_at_the_ranges_end_that_the_dips_list_shows():
    # 10 s polls to 250, none at 260-280, one at 290 (its delta spans the hole: left out of the rate line), the
    # range to 295. The line ends at 250; by hand the outage runs from the poll at 250 to the one at 290, 40 s.
    server = make_server("ends-out")
    write_samples(status_polls(server.pk, every_10s_but({260, 270, 280}, end=290)))
    tps = query.series([server.pk], ["tps"], RECENT_T0, RECENT_T0 + timedelta(seconds=295))[0]
    assert [((d.start - RECENT_T0).total_seconds(), d.seconds) for d in line_dips(tps, TPS / 2)] == [(250, 40)]
    verdict = judge_lines(tps, [], warmup=0)
    assert verdict.kind == "dips" and verdict_stalls(verdict) == [(250, 40, True)]  # before: "steady", no dips


def test_the_verdict_judges_an_outage_at_the_ranges_start_that_the_dips_list_shows():
    # 10 s polls, none at 100-120: the range from 95 starts in the outage, which the poll at 130 ended (its delta
    # spans the hole: left out of the rate line). By hand the outage runs from the poll at 90 to the one at 130.
    server = make_server("starts-out")
    write_samples(status_polls(server.pk, every_10s_but({100, 110, 120})))
    tps = query.series([server.pk], ["tps"], RECENT_T0 + timedelta(seconds=95), RECENT_T0 + timedelta(seconds=300))[0]
    listed = [((d.start - RECENT_T0).total_seconds(), d.seconds) for d in line_dips(tps, TPS / 2)]
    assert listed == [(90, 40)]
    verdict = judge_lines(tps, [])
    assert verdict.kind == "dips" and verdict_stalls(verdict) == [(90, 40, True)]  # before: "steady", no dips
    assert verdict.warmup_polls == 0 and verdict.warmup_end == tps.ts[0]  # judged from the first poll, as before


def test_the_stability_verdict_judges_the_outages_a_day_long_chart_lists(admin_client):
    # The polls of the short outage's test above: a 24-hour range reads minute rollups, whose buckets hide the
    # 30 s outage; the dips list reads it from the polls, and so does the verdict now.
    server = make_server("rolled-verdict")
    first = 3600
    missed = {first + 600, first + 610}
    write_samples(status_polls(server.pk, [s for s in range(first, first + 1801, 10) if s not in missed]))
    start, end = RECENT_T0, RECENT_T0 + timedelta(hours=24)
    response = admin_client.get(f"/servers/{server.pk}/stability/",
                                {"from": f"{start:%Y-%m-%dT%H:%M:%SZ}", "to": f"{end:%Y-%m-%dT%H:%M:%SZ}"})
    listed = [((d.start - RECENT_T0).total_seconds(), d.seconds, d.stalled) for d, _ in response.context["dips"]]
    assert listed == [(first + 590, 30, True)]
    verdict = response.context["verdict"]
    assert verdict.kind == "dips" and verdict_stalls(verdict) == listed  # before: "steady"
