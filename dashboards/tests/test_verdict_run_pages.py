"""A run's verdict on its report and on the stability page of its range: one first poll, the read view named."""

import re
from datetime import UTC, datetime, timedelta

import pytest

from collectors.models import TrxHolder
from servers.models import Run
from store.ingest import write_samples
from store.sample import Sample
from testing.servers import make_server


def verdict_text(body: str) -> str:
    part = body.split('id="verdict"')[1].split("</section>")[0]
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", part)).replace("&#x27;", "'")


def history_at(i: int) -> float:
    """0 until poll 19, +1,000 a poll to 20,000 at poll 39, then 500 +- 7 (a read view released at poll 40)."""
    if i < 20:
        return 0.0
    return 1000.0 * (i - 19) if i < 40 else 500.0 + (7 if i % 2 else -7)


@pytest.fixture
def run_with_a_held_view(db):
    server = make_server("lab")
    start = datetime.now(UTC).replace(microsecond=0) - timedelta(minutes=11)
    polls = [start + timedelta(seconds=10 * i + 0.3) for i in range(1, 61)]  # read 0.3 s into their second
    write_samples([Sample(server.pk, "global_status", t, 10.0, {"tps": 50_000 + 30 * (i % 2)}, frozenset({"tps"}))
                   for i, t in enumerate(polls, 1)]
                  + [Sample(server.pk, "history_length", t, None, {"history_list_length": history_at(i)})
                     for i, t in enumerate(polls, 1)])
    TrxHolder.objects.create(server=server, thread_id=22, trx_key="22/1", user="root", host="localhost",
                             started_at=start + timedelta(seconds=195), seen_at=start + timedelta(seconds=390),
                             ended_at=start + timedelta(seconds=400.4))
    # It starts 3.5 s after the range's start: the poll at +10 s measured mostly the time before it.
    run = Run.objects.create(name="held", server=server, started_at=start + timedelta(seconds=3.5),
                             ended_at=start + timedelta(seconds=600.5))
    return server, run, start


def hms(start: datetime, seconds: int) -> str:
    return f"{start + timedelta(seconds=seconds):%H:%M:%S}"


def test_the_report_and_the_runs_stability_page_judge_from_the_same_first_poll(admin_client, run_with_a_held_view):
    server, run, start = run_with_a_held_view
    report = verdict_text(admin_client.get(f"/runs/{run.pk}/report/").content.decode())
    # The Runs list's link: from the run's start to its end, to the second (the end rounded up).
    link = re.search(rf'href="(/servers/{server.pk}/stability/\?[^"]+)">stability<',
                     admin_client.get("/runs/").content.decode()).group(1).replace("&amp;", "&")
    assert link.endswith(f"to={start + timedelta(seconds=601):%Y-%m-%dT%H:%M:%S}")
    page = verdict_text(admin_client.get(link).content.decode())
    # The first poll inside the run is the one at +20.3 s; from there to the one at +600.3 s: 59 polls.
    first = f"no warm-up: from the run's first poll at {hms(start, 20)} UTC, over 59 points"
    assert first in report and first in page
    held = (f"History length held by a read view from {hms(start, 195)} to {hms(start, 390)} "
            f"(thread 22, root@localhost; peak 20,000), released: 493 at {hms(start, 400)}.")
    assert held in report and held in page
    assert "Drifting" not in report and "draining" not in report


def test_a_range_that_is_no_runs_says_its_own_first_poll(admin_client, run_with_a_held_view):
    server, _run, start = run_with_a_held_view
    page = verdict_text(admin_client.get(f"/servers/{server.pk}/stability/", {
        "from": f"{start + timedelta(seconds=5):%Y-%m-%dT%H:%M:%S}",
        "to": f"{start + timedelta(seconds=600):%Y-%m-%dT%H:%M:%S}"}).content.decode())
    assert f"no warm-up found: from the range's first poll at {hms(start, 10)} UTC" in page


def test_a_read_view_opened_near_the_runs_end_is_a_rise_not_a_drift(admin_client, db):
    server = make_server("late")
    start = datetime.now(UTC).replace(microsecond=0) - timedelta(minutes=11)
    polls = [start + timedelta(seconds=10 * i + 0.3) for i in range(1, 61)]
    # 500 to 900 (median 700) until poll 58, then 6,665 and 11,196 at the last two polls (+590.3 s, +600.3 s).
    history = [[500.0, 900.0, 700.0, 600.0, 800.0][i % 5] for i in range(1, 59)] + [6665.0, 11196.0]
    write_samples([Sample(server.pk, "global_status", t, 10.0, {"tps": 50_000 + 30 * (i % 2)}, frozenset({"tps"}))
                   for i, t in enumerate(polls, 1)]
                  + [Sample(server.pk, "history_length", t, None, {"history_list_length": h})
                     for t, h in zip(polls, history, strict=True)])
    TrxHolder.objects.create(server=server, thread_id=13, trx_key="13/1", user="stress", host="127.0.0.1",
                             started_at=start + timedelta(seconds=585), seen_at=start + timedelta(seconds=600.3))
    run = Run.objects.create(name="late", server=server, started_at=start + timedelta(seconds=3.5),
                             ended_at=start + timedelta(seconds=600.5))
    report = verdict_text(admin_client.get(f"/runs/{run.pk}/report/").content.decode())
    assert "Steady" in report and "Drifting" not in report
    assert (f"History length rising at the end: from ~700 to 11,196 in the last 2 polls (held by a read view: "
            f"thread 13, stress@127.0.0.1, open since {hms(start, 585)}).") in report


def test_the_runs_stability_page_leaves_out_the_poll_read_before_the_run_began(admin_client, db):
    """Seen live: polls read 0.1 s into their second, a run started 0.78 s into one; the Runs list's link, cut
    to the second, took in the poll read 0.68 s before the run began (0 TPS: nothing ran yet), listed it as a
    dip and lowered the mean (397.2 where the run's polls give 407.1). Here 0 TPS before the run and 100 TPS
    (500 per 5 s poll) in it. The page over a run's range shows the run report's figures, from the polls whose
    interval lies inside the run: the first poll read after the start (at +5.1 s) counts from +0.1 s, before the
    run began at +0.78 s, so by hand, mean 100.0 over the 29 polls after it, no dip."""
    server = make_server("edge")
    start = datetime.now(UTC).replace(microsecond=0) - timedelta(minutes=5)
    polls = [start + timedelta(seconds=5 * i + 0.1) for i in range(-3, 31)]
    began = start + timedelta(seconds=0.78)
    write_samples([Sample(server.pk, "global_status", t, 5.0, {"tps": 500 if t > began else 0}, frozenset({"tps"}))
                   for t in polls])
    Run.objects.create(name="edge", server=server, started_at=began,
                       ended_at=start + timedelta(seconds=150.5))
    link = re.search(rf'href="(/servers/{server.pk}/stability/\?[^"]+)">stability<',
                     admin_client.get("/runs/").content.decode()).group(1).replace("&amp;", "&")
    run = Run.objects.get(name="edge")
    report = re.search(r'href="([^"]+)">Open in the stability view<',
                       admin_client.get(f"/runs/{run.pk}/report/").content.decode()).group(1).replace("&amp;", "&")
    for url in (link, report):
        summary = admin_client.get(url).context["summary"]
        assert summary.points == 29 and summary.mean == pytest.approx(100.0) and summary.p5 == pytest.approx(100.0)
