"""One run, one warm-up: the run's own, else the one found from its TPS polls, on every page and CSV.

Run 18 of the fresh-eyes audit (stress rw x8, 150 s, no --warmup; the driver counted 2,821.4/s): its 31
per-poll TPS as the CSV gave them, 5 s apart. The old finder cut 68 s of a ramp that lasted two polls.
"""

import csv
import io
from datetime import timedelta

import pytest
from django.utils import timezone

from dashboards.analysis.run_verdict import warmup_end
from servers.models import Run
from store.ingest import write_samples
from store.sample import Sample
from testing.dashboards import get_csv, make_server

pytestmark = pytest.mark.django_db
RUN_18 = [551, 1660, 2466, 2623, 2406, 2596, 3235, 2436, 2561, 2713, 2523, 2233, 2454, 2837, 2490, 2886, 3205, 2984,
          2646, 3245, 3016, 2802, 2870, 2970, 2594, 3101, 3432, 3487, 2973, 3035, 3146]
POLL = 5
# By hand: the polls after the first third (31 // 3 = 10) average 2,901.38 with a population SD of 317.46,
# so the lower band is 2,901.38 - 2 x 317.46 = 2,266.47: 551 and 1,660 lie below it, 2,466 does not.
# The warm-up is the first two polls (it ends at the second, 10 s in); the 29 polls after it hold
# 81,965 x 5 transactions over 145 s: 2,826.38 a second.
STEADY_MEAN = 81965 / 29


def test_run_18s_ramp_of_two_polls_is_cut_not_its_drift():
    assert warmup_end(RUN_18) == 2


def test_a_ramp_is_cut_where_it_reaches_the_level():
    # 12 polls: the last 8 (after the first 12 // 3 = 4) average 2,000, SD 10: band 1,980; 300, 900, 1,500 lie
    # below it, 1,990 does not.
    values = [300, 900, 1500, 1990] + [2010, 1990] * 4
    assert warmup_end(values) == 3


def test_a_line_at_its_level_from_the_first_poll_is_not_cut():
    assert warmup_end([1000, 1010, 990, 1005, 995, 1000, 1010, 990, 1000, 1000, 1005, 995]) == 0


@pytest.fixture
def run_18():
    server = make_server("lab", poll_interval=POLL)
    start = timezone.now().replace(microsecond=0) - timedelta(minutes=10)
    write_samples([Sample(server.pk, "global_status", start + timedelta(seconds=POLL * (i + 1)), float(POLL),
                          {"tps": rate * POLL}, frozenset({"tps"})) for i, rate in enumerate(RUN_18)])
    return Run.objects.create(name="cmp rw x8", server=server, started_at=start,
                              ended_at=start + timedelta(seconds=POLL * len(RUN_18)))


def csv_rows(client, url: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(b"".join(client.get(url).streaming_content).decode())))


def test_every_page_and_csv_gives_the_run_one_warm_up_and_one_average(admin_client, run_18):
    report = admin_client.get(f"/runs/{run_18.pk}/report/")
    summary = report.context["summary"]
    assert (summary.warmup, summary.warmup_found, summary.tps.points) == (10, True, 29)
    assert summary.tps.mean == pytest.approx(STEADY_MEAN)
    assert "after a warm-up of 10 s (found from the data: the run gave none" in report.content.decode()
    verdict = report.context["verdict"]  # judges the polls the figures are of
    assert verdict.points == 29 and verdict.cv == pytest.approx(summary.tps.cv)
    assert f"{STEADY_MEAN:,.1f}" in admin_client.get("/runs/").content.decode()
    runs = csv_rows(admin_client, "/export/runs.csv")
    assert float(runs[0]["avg TPS after warm-up (/s)"]) == pytest.approx(STEADY_MEAN)
    assert runs[0]["warm-up (s)"] == "10" and runs[0]["warm-up found from the data (1: the run gave none)"] == "1"
    page = admin_client.get("/compare/", {"runs": str(run_18.pk)})
    assert ">10 s<br><span" in page.content.decode() and ">found</span>" in page.content.decode()
    compare = page.context["summaries"][0].summary
    assert (compare.warmup, compare.tps.mean, compare.tps.p5) == (10, pytest.approx(STEADY_MEAN), summary.tps.p5)
    printed = admin_client.get("/reports/compare/", {"runs": str(run_18.pk)}).context["rows"][0]["summary"]
    assert (printed.warmup, printed.tps.mean, printed.tps.cv) == (10, pytest.approx(STEADY_MEAN), summary.tps.cv)
    row = csv_rows(admin_client, f"/export/compare.csv?runs={run_18.pk}")[0]
    assert float(row["avg TPS (/s)"]) == pytest.approx(STEADY_MEAN) and row["warm-up trimmed (s)"] == "10"
    assert float(row["p95 TPS (/s)"]) == pytest.approx(summary.tps.p95)


def test_the_runs_own_warm_up_and_the_pages_trim_win(admin_client, run_18):
    Run.objects.filter(pk=run_18.pk).update(warmup_seconds=20)
    row = csv_rows(admin_client, f"/export/compare.csv?runs={run_18.pk}")[0]
    assert row["warm-up trimmed (s)"] == "20" and float(row["avg TPS (/s)"]) == pytest.approx(sum(RUN_18[4:]) / 27)
    runs = get_csv(admin_client, "/export/runs.csv")
    assert runs[1][runs[0].index("warm-up found from the data (1: the run gave none)")] == "0"
    row = csv_rows(admin_client, f"/export/compare.csv?runs={run_18.pk}&warmup=0")[0]
    assert float(row["avg TPS (/s)"]) == pytest.approx(sum(RUN_18) / 31)


def test_a_warm_up_longer_than_the_run_is_said_where_its_figures_would_be(admin_client, run_18):
    # The run lasts 31 polls x 5 s = 155 s; a warm-up of 200 s leaves nothing of it.
    Run.objects.filter(pk=run_18.pk).update(warmup_seconds=200)
    said = ("Its warm-up of 200 s is as long as the run (155 s) or longer: nothing of the run is left after it, "
            "so it has no figures. Give the run a shorter warm-up (Admin → Runs), or compare it with a warm-up "
            "trim under 155 s (warmup=).")
    assert said in admin_client.get(f"/runs/{run_18.pk}/report/").content.decode()
    assert said in admin_client.get("/compare/", {"runs": run_18.pk}).content.decode()
    assert said in admin_client.get("/reports/compare/", {"runs": run_18.pk}).content.decode()
    # A trim given on the compare page that leaves nothing names the trim; one of 150 s leaves 5 s: no note.
    trimmed = "The warm-up trim of 155 s is as long as this run (155 s) or longer: nothing of it is left"
    assert trimmed in admin_client.get("/compare/", {"runs": run_18.pk, "warmup": 155}).content.decode()
    assert "warmup-overrun" not in admin_client.get("/compare/", {"runs": run_18.pk, "warmup": 150}).content.decode()
    Run.objects.filter(pk=run_18.pk).update(warmup_seconds=150)
    assert "warmup-overrun" not in admin_client.get(f"/runs/{run_18.pk}/report/").content.decode()


# Seen live (livecheck, MariaDB 10.11, polls of 3 s): sysbench oltp_read_write --rate=120 for 2 minutes, then
# --rate=300, marked as one run with no warm-up. Its 79 polls' transactions as /export.csv?mode=delta gave them.
# The warm-up finder cut the first 26 polls (79 // 3) of the flat 120 level as a "warm-up of 80 s": the run's
# average read 255.3 (the last 53 polls: 40,591 over 159 s). By hand it has none: the first poll is at its level
# already (a level, not a ramp), so its average is every transaction over every second: 49,835 / 237 = 210.27.
LEVEL_CHANGE_RUN = [363, 336, 373, 329, 328, 342, 340, 378, 360, 362, 368, 348, 346, 380, 352, 361, 318, 405, 360,
                    311, 367, 370, 373, 366, 341, 367, 402, 369, 390, 327, 387, 348, 352, 349, 372, 350, 342, 356,
                    357, 740, 919, 887, 974, 892, 900, 900, 907, 917, 910, 894, 948, 892, 839, 907, 854, 860, 900,
                    839, 916, 873, 931, 890, 897, 894, 901, 857, 988, 859, 1019, 796, 1001, 919, 879, 845, 852, 963,
                    896, 909, 926]


def test_a_run_whose_load_steps_up_keeps_its_first_level(admin_client):
    server = make_server("lab", poll_interval=3)
    start = timezone.now().replace(microsecond=0) - timedelta(minutes=10)
    write_samples([Sample(server.pk, "global_status", start + timedelta(seconds=3 * (i + 1)), 3.0,
                          {"tps": float(n)}, frozenset({"tps"})) for i, n in enumerate(LEVEL_CHANGE_RUN)])
    run = Run.objects.create(name="rate 120 then 300", server=server, started_at=start,
                             ended_at=start + timedelta(seconds=3 * len(LEVEL_CHANGE_RUN)))
    row = csv_rows(admin_client, "/export/runs.csv")[0]
    assert row["warm-up (s)"] == "0" and row["samples"] == "79"
    assert float(row["avg TPS after warm-up (/s)"]) == pytest.approx(49835 / 237)
    summary = admin_client.get(f"/runs/{run.pk}/report/").context["summary"]
    assert (summary.warmup, summary.tps.points) == (0, 79)
