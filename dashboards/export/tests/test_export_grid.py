"""/export.csv rows as an engineer computes them by hand from the raw polls: a counter's row is the sum of
its polls' deltas (over the seconds they cover, as a rate), a delta spanning an outage is in no row, and
every row lies on the grid asked for, inside the range."""

from datetime import timedelta

import pytest

from dashboards.export.csv_safe import iso_utc
from dashboards.export.grid import in_phase, poll_grid, step_grid, whole_buckets
from store.ingest import write_samples
from store.sample import Sample
from testing import dashboards as data

pytestmark = pytest.mark.django_db
T0 = data.RECENT_T0  # "14:00:00" below: on the hour
# (seconds after T0, interval in s, rate /s): each delta is interval x rate. A 120 s outage after +70.
POLLS = [(0, None, None), (10, 10, 100), (20, 10, 300), (30, 10, 100), (41, 11, 400), (49, 8, 100),
         (60, 11, 100), (70, 10, 200), (190, 120, 50), (200, 10, 100), (212, 12, 500), (220, 8, 100),
         (229, 9, 100), (240, 11, 300), (250, 10, 100), (260, 10, 100)]
THREADS = [4, 6, 5, 9, 7, 3, 8, 2, 5, 5, 6, 4, 7, 3, 9, 1]  # a gauge read at each poll


def at(seconds: float) -> str:
    return iso_utc(T0 + timedelta(seconds=seconds))


def tps_polls(server_id: int) -> list[Sample]:
    out = []
    for (offset, interval, rate), threads in zip(POLLS, THREADS, strict=True):
        counters = {} if interval is None or rate is None else {"tps": interval * rate}
        out.append(Sample(server_id, "global_status", T0 + timedelta(seconds=offset),
                          None if interval is None else float(interval), {**counters, "Threads_running": threads},
                          frozenset(counters)))
    return out


@pytest.fixture
def db1(admin_user, client):
    client.force_login(admin_user)
    server = data.make_server("db1", poll_interval=10)
    write_samples(tps_polls(server.pk))
    return server


def cells(client, **params) -> dict[str, list[str]]:
    rows = data.get_csv(client, "/export.csv", server="db1", metrics="tps,Threads_running", **params)
    return {r[0]: r[1:] for r in rows[1:]}


def test_a_rate_row_is_the_sum_of_its_deltas_over_the_seconds_they_cover(client, db1):
    got = cells(client, **{"from": at(0), "to": at(300), "step": "60"})
    # By hand, deltas (interval x rate) of the polls read in each minute over the sum of their intervals.
    # 14:03 leaves out +190, whose delta covers the outage 14:01:10-14:03:10 (with it: 14700 / 159 = 92.45).
    expected = {
        at(0): (10 * 100 + 10 * 300 + 10 * 100 + 11 * 400 + 8 * 100) / 49,  # 208.163, not the mean 200
        at(60): (11 * 100 + 10 * 200) / 21,  # 147.619
        at(180): (10 * 100 + 12 * 500 + 8 * 100 + 9 * 100) / 39,  # 223.077
        at(240): (11 * 300 + 10 * 100 + 10 * 100) / 31,  # 170.968
    }
    assert list(got) == [at(0), at(60), at(120), at(180), at(240)]  # 14:05 would hold no whole minute
    assert got[at(120)][0] == ""  # the outage
    assert {t: float(got[t][0]) for t in expected} == pytest.approx(expected, rel=1e-5)
    # The gauge: the mean of the values read in the minute (polls +0 .. +49, then +60 and +70).
    assert float(got[at(0)][1]) == pytest.approx((4 + 6 + 5 + 9 + 7 + 3) / 6, rel=1e-5)
    assert float(got[at(60)][1]) == pytest.approx((8 + 2) / 2)
    assert float(got[at(180)][1]) == pytest.approx((5 + 5 + 6 + 4 + 7) / 5)


def test_a_30_s_row_weighs_each_poll_by_its_interval(client, db1):
    got = cells(client, **{"from": at(0), "to": at(120), "step": "30"})
    assert float(got[at(30)][0]) == pytest.approx((10 * 100 + 11 * 400 + 8 * 100) / 29, rel=1e-5)  # 213.793


def test_a_delta_row_holds_the_same_polls_as_the_rate_row(client, db1):
    rows = data.get_csv(client, "/export.csv", server="db1", metrics="tps", mode="delta", step="60",
                        **{"from": at(0), "to": at(300)})
    assert rows[0] == ["time (UTC)", "db1 tps (per 60 s)"]
    assert rows[1:] == [[at(0), "10200"], [at(60), "3100"], [at(120), ""],
                        [at(180), str(1000 + 6000 + 800 + 900)],  # not 14700: +190's 6000 came over 120 s
                        [at(240), str(3300 + 1000 + 1000)]]


@pytest.mark.parametrize("mode", ["rate", "delta"])
def test_one_row_a_poll_leaves_out_the_delta_across_the_outage_in_both_modes(client, db1, mode):
    rows = data.get_csv(client, "/export.csv", server="db1", metrics="tps", mode=mode, full="1",
                        **{"from": at(0), "to": at(300)})
    got = {r[0]: r[1] for r in rows[1:] if r[1] != ""}
    # Rows centred on the polls from +10 on: +41 and +49 sit on the rows of 40 and 50 s, +212 on 210 s.
    kept = {10: (10, 100), 20: (10, 300), 30: (10, 100), 40: (11, 400), 50: (8, 100), 60: (11, 100),
            70: (10, 200), 200: (10, 100), 210: (12, 500), 220: (8, 100), 230: (9, 100), 240: (11, 300),
            250: (10, 100), 260: (10, 100)}
    assert {t: float(v) for t, v in got.items()} == {
        at(t): float(rate if mode == "rate" else interval * rate) for t, (interval, rate) in kept.items()}


def test_no_row_is_labelled_before_the_range_nor_holds_part_of_a_step(client, db1):
    got = cells(client, mode="delta", **{"from": at(30), "to": at(250), "step": "60"})
    # 14:00:30-14:04:10: the whole minutes inside are 14:01, 14:02, 14:03; 14:00 and 14:04 are partial.
    assert list(got) == [at(60), at(120), at(180)]
    assert [got[t][0] for t in got] == ["3100", "", "8700"]


def test_a_step_leaving_no_whole_row_is_refused(client, db1):
    response = client.get("/export.csv", {"server": "db1", "metrics": "tps", "mode": "delta", "step": "60",
                                          "from": at(30), "to": at(100)})
    assert response.status_code == 400
    assert (f"step=60 leaves no whole row in this range: rows start on multiples of the step and a row reaching "
            f"outside the range is left out (the first would be {at(60)} to {at(120)})") in response.content.decode()


def test_a_server_polled_out_of_phase_gets_one_poll_a_row(client, admin_user):
    client.force_login(admin_user)
    a, b = data.make_server("a", poll_interval=10), data.make_server("b", poll_interval=10)
    write_samples(data.global_status(a.pk, T0, 31))
    # b polls 5 s after a, 40 ms early or late in turn: +4.96, +15.04, +24.96, ...
    times = [T0 + timedelta(seconds=5 + 10 * j, milliseconds=40 if j % 2 else -40) for j in range(31)]
    write_samples([Sample(b.pk, "global_status", times[0], None, {})] + [
        Sample(b.pk, "global_status", times[j], (times[j] - times[j - 1]).total_seconds(), {"tps": 1000 * j},
               frozenset({"tps"})) for j in range(1, 31)])
    rows = data.get_csv(client, "/export.csv", server="a,b", metrics="tps", full="1",
                        **{"from": at(0), "to": at(300)})
    got = {r[0]: r[2] for r in rows[1:] if r[2] != ""}
    # By hand: b's poll j (at 5 + 10j s, +-40 ms) is nearest a's poll at 10 (j + 1) s; its rate is its delta
    # over its own interval: 10.08 s for a late poll (odd j, after an early one), 9.92 s for an early one.
    expected = {at(10 * (j + 1)): 1000 * j / (10.08 if j % 2 else 9.92) for j in range(1, 30)}
    assert got.keys() == expected.keys()  # one poll a row, no row skipped
    assert {t: float(v) for t, v in got.items()} == pytest.approx(expected, rel=1e-5)


def test_whole_buckets_and_phase_by_hand():
    g = step_grid(T0 + timedelta(seconds=30), 60)
    assert g.start_of(0) == T0  # bucket 0 holds the start, and begins before it
    assert whole_buckets(g, T0 + timedelta(seconds=30), T0 + timedelta(seconds=250)) == (1, 3)
    assert whole_buckets(g, T0 + timedelta(seconds=30), T0 + timedelta(seconds=240)) == (1, 3)  # 14:04 is partial
    assert whole_buckets(g, T0 + timedelta(seconds=30), T0 + timedelta(seconds=300)) == (1, 4)  # `to` inclusive
    grid = poll_grid(T0, 10)
    moved = in_phase(grid, T0 + timedelta(seconds=16))  # 6 s after a row: 4 s before the next one
    assert moved.label(3) == grid.label(3) == T0 + timedelta(seconds=30)
    # The row of 30 s holds this server's polls from 21 to 31 s (centred on its poll at 26 s).
    assert [moved.bucket(T0 + timedelta(seconds=s)) for s in (20.9, 21, 26, 30.9, 31)] == [2, 3, 3, 3, 4]
