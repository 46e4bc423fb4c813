"""The explorer and the runs page say what they could not show, and the explorer draws timers in seconds."""

from datetime import timedelta

import pytest

from collectors.models import ServerHealth
from collectors.transactions import DEFINITIONS, EXPLICIT
from servers.models import Run
from store.ingest import write_samples
from store.sample import Sample
from testing import dashboards as data

pytestmark = pytest.mark.django_db
T0 = data.RECENT_T0
TIMER = "wait.time_ps:wait/io/file/innodb/innodb_data_file"


@pytest.fixture
def db1():
    server = data.make_server("db1", poll_interval=10)
    # 3 ms waited per second: 30 ms (3e10 ps) in each 10 s poll
    write_samples([Sample(server.pk, "pfs_waits", T0 + timedelta(seconds=10 * i), 10.0, {TIMER: 3 * 10**10},
                          frozenset({TIMER})) for i in range(1, 7)])
    return server


def window() -> dict:
    return {"from": T0.isoformat(), "to": (T0 + timedelta(minutes=1)).isoformat()}


def test_the_explorer_draws_a_timer_in_seconds_per_second_and_says_so(admin_client, db1):
    response = admin_client.get("/explore/", {"server": db1.pk, "metric": TIMER, **window()})
    trace = data.figures(response)["explore-chart"]["data"][0]
    assert trace["name"] == f"db1 · {TIMER} (s/s)"
    drawn = [v for v in trace["y"] if v is not None]
    assert len(drawn) == 6 and drawn == pytest.approx([0.003] * 6)  # 3e10 ps / 10 s / 1e12 ps per s


def test_the_explorer_names_what_matched_nothing(admin_client, db1):
    body = admin_client.get("/explore/", {"server": ["abc", db1.pk, 999999], "metric": ["nosuch", TIMER],
                                          **window()}).content.decode()
    assert "server=&#x27;abc&#x27; is not a server id" in body
    assert "server=999999 is not a server" in body
    assert "&#x27;nosuch&#x27; matches no metric of db1" in body
    assert f"&#x27;{TIMER}&#x27; matches no metric" not in body


@pytest.mark.parametrize("key", ["metric", "pattern"])
def test_the_explorer_says_a_name_with_a_nul_byte_matches_nothing(admin_client, db1, key):
    """PostgreSQL refuses a NUL in the name it is asked to match: the page says no metric has it."""
    response = admin_client.get("/explore/", {"server": db1.pk, key: "tps\x00", **window()})
    assert response.status_code == 200
    assert "&#x27;tps\\x00&#x27; matches no metric of db1" in response.content.decode()


def test_the_runs_page_says_a_server_it_cannot_filter_by(admin_client, db1):
    Run.objects.create(server=db1, name="r1", started_at=T0, ended_at=T0 + timedelta(minutes=1))
    body = admin_client.get("/runs/", {"server": "abc"}).content.decode()
    assert "server=&#x27;abc&#x27; is not a server id: the runs of every server are listed." in body and "r1" in body
    assert "There is no server 999999." in admin_client.get("/runs/", {"server": 999999}).content.decode()
    assert "role=\"alert\"" not in admin_client.get("/runs/", {"server": db1.pk}).content.decode()


def test_the_dips_table_says_what_its_times_are_good_to(admin_client):
    server = data.make_server("dippy", poll_interval=10)
    rates = [100] * 20 + [10] * 3 + [100] * 20  # a 30 s dip
    write_samples([Sample(server.pk, "global_status", T0 + timedelta(seconds=10 * i), 10.0, {"tps": 10 * r},
                          frozenset({"tps"})) for i, r in enumerate(rates, start=1)])
    end = T0 + timedelta(hours=24)
    body = admin_client.get(f"/servers/{server.pk}/stability/", {"from": T0.isoformat(), "to": end.isoformat(),
                                                                  "w": 1200}).content.decode()
    assert "good to a pixel's width (1 min 12 s here" in body  # 24 h over 1,200 points: 72 s


def test_the_dips_table_says_a_pixel_under_a_second_as_such(admin_client):
    server = data.make_server("dippy-short", poll_interval=5)
    rates = [100] * 20 + [10] * 2 + [100] * 20  # a 10 s dip
    write_samples([Sample(server.pk, "global_status", T0 + timedelta(seconds=5 * i), 5.0, {"tps": 5 * r},
                          frozenset({"tps"})) for i, r in enumerate(rates, start=1)])
    end = T0 + timedelta(minutes=4)
    body = admin_client.get(f"/servers/{server.pk}/stability/", {"from": T0.isoformat(), "to": end.isoformat(),
                                                                  "w": 1200}).content.decode()
    assert "good to a pixel's width (0.2 s here" in body  # 4 min over 1,200 points: 240 / 1200 = 0.2 s, not "0 s"


def test_the_stability_page_says_when_tps_changed_counter_within_the_range(admin_client):
    server = data.make_server("switched", poll_interval=10)
    on = {"tps_trx_summary": 30, "tps_explicit": 10, "tps": 30}  # the instrument on: 30 transactions a poll
    off = {"tps_explicit": 10, "tps": 10}  # then off: the explicit ones only
    write_samples([Sample(server.pk, "global_status", T0 + timedelta(seconds=10 * i), 10.0, values,
                          frozenset(values)) for i, values in enumerate([on] * 5 + [off] * 5, start=1)])
    ServerHealth.objects.create(server=server, sources={"global_status": {"ok": True, "note": DEFINITIONS[EXPLICIT]}})
    params = {"from": T0.isoformat(), "to": (T0 + timedelta(minutes=2)).isoformat()}
    body = admin_client.get(f"/servers/{server.pk}/stability/", params).content.decode()
    assert "Part of this range's TPS was counted by another counter" in body
    later = {"from": (T0 + timedelta(seconds=55)).isoformat(), "to": (T0 + timedelta(minutes=2)).isoformat()}
    body = admin_client.get(f"/servers/{server.pk}/stability/", later).content.decode()
    assert "counted by another counter" not in body  # only polls counted by Com_commit + Com_rollback


def test_runs_and_compare_say_when_tps_counts_explicit_transactions_only(admin_client):
    server = data.make_server("autocommit", poll_interval=10)
    write_samples([Sample(server.pk, "global_status", T0 + timedelta(seconds=10 * i), 10.0,
                          {"tps": 0, "tps_explicit": 0, "qps": 600_000}, frozenset({"tps", "tps_explicit", "qps"}))
                   for i in range(1, 10)])  # an autocommit load: 60,000 statements a second, no COMMIT
    ServerHealth.objects.create(server=server, sources={"global_status": {"ok": True, "note": DEFINITIONS[EXPLICIT]}})
    run = Run.objects.create(server=server, name="point selects", started_at=T0, ended_at=T0 + timedelta(seconds=90))
    runs = admin_client.get("/runs/").content.decode()
    assert "0.0 <span class=\"muted small\"" in runs and "(explicit transactions only)" in runs
    compare = admin_client.get("/compare/", {"runs": str(run.pk)}).content.decode()
    assert "explicit transactions only" in compare


def test_the_top_waits_are_the_biggest_totals_over_the_range(admin_client):
    server = data.make_server("ranked", poll_interval=10)
    a, b = "wait.time_ps:wait/io/file/innodb/innodb_data_file", "wait.time_ps:wait/synch/mutex/innodb/trx_sys_mutex"
    polls = []
    for i in range(1, 61):  # 10 minutes: a waits 1.2 s/s throughout, b 1.6 s/s in the second half only
        values = {a: 12 * 10**12} | ({b: 16 * 10**12} if i > 30 else {})
        polls.append(Sample(server.pk, "pfs_waits", T0 + timedelta(seconds=10 * i), 10.0, values, frozenset(values)))
    write_samples(polls)
    params = {"from": T0.isoformat(), "to": (T0 + timedelta(minutes=10)).isoformat(), "waits": 1}
    fig = data.figures(admin_client.get(f"/servers/{server.pk}/stability/", params))["stability-chart"]
    drawn = {t["name"] for t in fig["data"] if t.get("yaxis") == "y2"}
    assert drawn == {"wait/io/file/innodb/innodb_data_file"}  # 720 s waited against b's 480 s


def test_the_explorer_names_a_parameter_it_does_not_read(admin_client, db1):
    body = admin_client.get("/explore/", {"servers": db1.pk, "metric": TIMER, **window()}).content.decode()
    assert "servers= is not a parameter of this page, ignored (did you mean server=?)" in body
    assert "xyzzy= is not a parameter of this page, ignored<" in admin_client.get(
        "/explore/", {"xyzzy": "1"}).content.decode()
    known = admin_client.get("/explore/", {"server": db1.pk, "metric": TIMER, "pattern": "tps", "log": "1",
                                           "range": "1h", "w": "800", **window()}).content.decode()
    assert "is not a parameter" not in known
