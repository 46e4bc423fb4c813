"""A poll whose TPS counter changed (its basis turned on: no `tps` delta there) is no outage.

Polls every 5 s at 500 TPS; the one at 100 s stored no `tps` (innodb_monitor_enable='trx_%' changed the basis:
collectors.delta.add_aliases), though it polled fine (its interval and its other values are there). Before, TPS's
own samples (95, 105) read as a hole, and the dips list said "95-100, 5 s, no polls: outage or restart".
"""

from datetime import timedelta

import pytest

from servers.models import Run
from store.ingest import write_samples
from store.sample import Sample
from testing.dashboards import RECENT_T0, make_server

pytestmark = pytest.mark.django_db

TPS = 500


def polls(server_id: int, no_tps_at: int, restart: bool = False) -> list[Sample]:
    """global_status every 5 s over 0..300 s; the poll at `no_tps_at` without `tps` (with its interval, or none
    where it found a restart). The poll after it read 0.4 ms early, its interval stored as 5,000 ms: where its
    reading began (ts - interval) is 0.4 ms before the poll at `no_tps_at`, as the store keeps milliseconds (seen
    live: a hole ending 158 us before the poll that stored no tps)."""
    out = []
    for at in range(0, 301, 5):
        ts = RECENT_T0 + timedelta(seconds=at) - (timedelta(microseconds=400) if at > no_tps_at else timedelta(0))
        if at == 0 or (restart and at == no_tps_at):
            out.append(Sample(server_id, "global_status", ts, None, {"Threads_running": 4}))
        elif at == no_tps_at:
            out.append(Sample(server_id, "global_status", ts, 5.0, {"tps_explicit": 10, "Threads_running": 4},
                              frozenset({"tps_explicit"})))
        else:
            out.append(Sample(server_id, "global_status", ts, 5.0,
                              {"tps": TPS * 5, "tps_explicit": 10, "Threads_running": 4},
                              frozenset({"tps", "tps_explicit"})))
    return out


def page(client, server):
    return client.get(f"/servers/{server.pk}/stability/", {
        "from": f"{RECENT_T0 + timedelta(seconds=1):%Y-%m-%dT%H:%M:%SZ}",
        "to": f"{RECENT_T0 + timedelta(seconds=300):%Y-%m-%dT%H:%M:%SZ}"})


def test_it_lists_no_outage_where_only_the_tps_counter_changed(admin_client):
    server = make_server("basis-changed")
    write_samples(polls(server.pk, no_tps_at=100))
    answer = page(admin_client, server)
    assert answer.context["dips"] == []  # every known poll at 500 TPS, over the 250 threshold: no dip at all
    assert "no polls: outage or restart" not in answer.content.decode()  # before: 95-100, 5 s
    verdict = answer.context["verdict"]
    assert (verdict.dips, verdict.kind) == ((), "steady")  # before: the hole judged a dip (no steady line)


def test_it_still_lists_a_restart_found_without_a_missed_poll(admin_client):
    # The poll at 100 found the server restarted: it has no interval, TPS over (95, 100] is unknown.
    server = make_server("restarted-5s")
    write_samples(polls(server.pk, no_tps_at=100, restart=True))
    answer = page(admin_client, server)
    dips = [((d.start - RECENT_T0).total_seconds(), round(d.seconds, 3)) for d, _ in answer.context["dips"]]
    assert dips == [(95, 5)]  # to 99.9996 s: where the poll at 105 s (read 0.4 ms early) began, 5,000 ms before
    assert "no polls: outage or restart" in answer.content.decode()


def test_it_lists_no_outage_from_the_polls_on_a_rollup_range(admin_client):
    # Two days to the last poll: the chart reads minute rollups, and the outages come from the polls
    # (reads.poll_outages), where TPS's samples at 95 and 105 s read as one.
    server = make_server("basis-changed-days")
    write_samples(polls(server.pk, no_tps_at=100))
    answer = admin_client.get(f"/servers/{server.pk}/stability/", {
        "from": f"{RECENT_T0 + timedelta(seconds=300) - timedelta(days=2):%Y-%m-%dT%H:%M:%SZ}",
        "to": f"{RECENT_T0 + timedelta(seconds=300):%Y-%m-%dT%H:%M:%SZ}"})
    assert answer.context["dips"] == []  # before: 95-100, 5 s, "no polls: outage or restart"


def test_the_run_report_lists_no_outage_where_only_the_tps_counter_changed(admin_client):
    server = make_server("basis-changed-run")
    write_samples(polls(server.pk, no_tps_at=100))
    run = Run.objects.create(name="r", server=server, started_at=RECENT_T0, ended_at=RECENT_T0 + timedelta(seconds=300),
                             warmup_seconds=0)
    answer = admin_client.get(f"/runs/{run.pk}/report/")
    verdict = answer.context["verdict"]
    assert answer.context["dips"] == []  # before: 95-100, 5 s, a stall
    assert (verdict.dips, verdict.kind) == ((), "steady")


def test_many_counter_changes_are_read_in_one_pass_and_a_restart_among_them_still_listed(admin_client):
    # Twelve polls without `tps` (20, 40, ... 240 s: more than counter_holes.FEW_HOLES, so their polls are read once
    # over their span) and one restart at 270 s, every 5 s poll at 500 TPS. By hand: the twelve were polled through,
    # no dip; the restart's poll has no interval, so (265, 270] is unknown: the one row, 265-270 s, 5 s.
    server = make_server("basis-changed-often")
    holes = set(range(20, 241, 20))
    samples = [s for s in polls(server.pk, no_tps_at=270, restart=True)
               if (s.ts - RECENT_T0).total_seconds() not in holes]
    samples += [Sample(server.pk, "global_status", RECENT_T0 + timedelta(seconds=at), 5.0,
                       {"tps_explicit": 10, "Threads_running": 4}, frozenset({"tps_explicit"})) for at in holes]
    write_samples(samples)
    answer = page(admin_client, server)
    dips = [((d.start - RECENT_T0).total_seconds(), round(d.seconds, 3)) for d, _ in answer.context["dips"]]
    assert dips == [(265, 5)]
