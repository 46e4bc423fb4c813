"""A sweep on a server with other load: each step's server TPS against the load's own count."""

import csv
import io
from datetime import timedelta

import pytest

from servers.models import Run
from testing.dashboards import RECENT_T0, figures, make_server
from testing.scalability import BASELINE, by_hand, write_sweep

pytestmark = pytest.mark.django_db
OWN = {1: 500.0, 2: 1500.0, 4: 2100.0}  # what the driver counted: the rest of the server's TPS was others'


def own(runs: list[Run], tps_by_level: dict[int, float]) -> None:
    for run in runs:
        Run.objects.filter(pk=run.pk).update(client_figures={
            "tool": "stress", "transactions": int(tps_by_level[run.concurrency] * 50), "errors": 0, "seconds": 50.0,
            "tps": tps_by_level[run.concurrency], "latency_avg_ms": 2.0, "latency_p95_ms": 3.0})


def test_each_step_says_what_share_other_clients_ran_and_the_knee_reads_the_loads_own(admin_client):
    own(write_sweep(make_server("demo"), "busy", "", RECENT_T0, BASELINE), OWN)
    response = admin_client.get("/scalability/", {"sweep": "busy"})
    html = response.content.decode()
    for c, base in BASELINE.items():
        share = (by_hand(base)[0] - OWN[c]) / by_hand(base)[0]  # 51.9 %, 26.5 %, 17.3 %
        assert f"other clients: {share * 100:.1f} % of the transactions" in html
    # By the server's TPS the step to 4 gained 24 % of one thread's: knee at 2. By the driver's own,
    # (2100 - 1500) / 2 / 500 = 60 %: knee at 4.
    fig = figures(response)["chart-scalability"]
    assert [a["text"] for a in fig["layout"]["annotations"]] == ["still scaling at 4 threads"]  # the last level
    dotted = next(t for t in fig["data"] if t["meta"] == "own")
    assert dotted["y"] == list(OWN.values()) and dotted["line"]["dash"] == "dot"
    assert "manage.py demo pause" in html
    rows = list(csv.DictReader(io.StringIO(b"".join(
        admin_client.get("/export/scalability.csv", {"sweep": "busy"}).streaming_content).decode())))
    assert [float(r["load's own TPS (/s)"]) for r in rows] == list(OWN.values())
    assert float(rows[0]["other clients (share of server TPS)"]) == pytest.approx(1 - 500 / by_hand(1000)[0])


def test_within_five_percent_nothing_is_said_and_the_server_tps_is_read(admin_client):
    runs = write_sweep(make_server("quiet"), "alone", "", RECENT_T0, BASELINE)
    own(runs, {c: by_hand(base)[0] * 0.96 for c, base in BASELINE.items()})  # 4 % others: the poll's noise
    response = admin_client.get("/scalability/", {"sweep": "alone"})
    html = response.content.decode()
    assert "other clients:" not in html and "demo pause" not in html
    fig = figures(response)["chart-scalability"]
    assert [a["text"] for a in fig["layout"]["annotations"]] == ["knee: 2 threads"]
    assert not [t for t in fig["data"] if t["meta"] == "own"]


def test_a_level_without_its_own_count_keeps_the_server_tps(admin_client):
    runs = write_sweep(make_server("mixed"), "half", "", RECENT_T0, BASELINE)
    own(runs[:1], OWN)  # only the first step counted its own
    html = admin_client.get("/scalability/", {"sweep": "half"}).content.decode()
    assert "other clients: 51.9 % of the transactions" in html
    assert "not every level counted its own" in html


def test_a_server_that_counted_fewer_keeps_its_tps_and_says_what_its_polls_cover(admin_client):
    """The audit's sweep: at 4 threads the server counted 5.8 % fewer transactions than the driver, its
    polls covering 50 of the step's 55 s (the step ends 5 s after its last poll). No other client can make
    the server count fewer: no "other clients", the server's TPS is read (knee at 2, as BASELINE's), and
    the CSV's ratio and gain recompute from the TPS column it says they read."""
    runs = write_sweep(make_server("paused"), "alone", "", RECENT_T0, BASELINE)
    Run.objects.filter(pk=runs[2].pk).update(ended_at=runs[2].ended_at + timedelta(seconds=5))
    own(runs, {1: by_hand(1000)[0] * 0.99, 2: by_hand(2000)[0] * 1.01, 4: by_hand(2500)[0] * 1.058})
    response = admin_client.get("/scalability/", {"sweep": "alone"})
    html = response.content.decode()
    assert "others-note" not in html and "other clients:" not in html and "demo pause" not in html
    # By hand: the server's TPS over the load's, 1 / 1.058 - 1 = -5.5 %: below it by 5.5 % of the load's
    assert ("the server&#x27;s TPS is 5.5 % below the load&#x27;s own: the polls inside the step "
            "cover 50 of its 55 s, so the server&#x27;s TPS is of that part") in html
    fig = figures(response)["chart-scalability"]
    assert [a["text"] for a in fig["layout"]["annotations"]] == ["knee: 2 threads"]
    assert not [t for t in fig["data"] if t["meta"] == "own"]
    rows = list(csv.DictReader(io.StringIO(b"".join(
        admin_client.get("/export/scalability.csv", {"sweep": "alone"}).streaming_content).decode())))
    read = [float(r["TPS the ratio, gain, knee and efficiency read (/s)"]) for r in rows]
    assert read == pytest.approx([by_hand(base)[0] for base in BASELINE.values()])
    assert {r["that TPS is (server or own)"] for r in rows} == {"server"}
    # gain at 2 threads: (TPS(2) - TPS(1)) / (2 - 1) / (TPS(1) / 1); at 4: (TPS(4) - TPS(2)) / 2 / TPS(1)
    assert float(rows[1]["gain per added thread (share of first level's TPS per thread)"]) == \
        pytest.approx((read[1] - read[0]) / read[0])
    assert float(rows[2]["gain per added thread (share of first level's TPS per thread)"]) == \
        pytest.approx((read[2] - read[1]) / 2 / read[0])


def test_the_csvs_ratio_reads_the_tps_its_row_says(admin_client):
    """Curve 1 read by the load's own TPS (other clients ran), curve 2 by the server's: each row's ratio to
    the first curve is its read TPS over curve 1's read TPS at the same threads."""
    server = make_server("demo")
    own(write_sweep(server, "busy", "", RECENT_T0, BASELINE), OWN)
    write_sweep(server, "later", "", RECENT_T0 + timedelta(hours=1), BASELINE)
    rows = list(csv.DictReader(io.StringIO(b"".join(admin_client.get(
        "/export/scalability.csv", {"sweep": ["busy", "later"]}).streaming_content).decode())))
    read = {(r["curve"], r["threads"]): float(r["TPS the ratio, gain, knee and efficiency read (/s)"]) for r in rows}
    assert [r["that TPS is (server or own)"] for r in rows] == ["own"] * 3 + ["server"] * 3
    for r in rows[3:]:
        assert float(r["TPS ratio to first curve"]) == pytest.approx(read[("later", r["threads"])] /
                                                                     read[("busy", r["threads"])])


def test_a_surplus_the_polls_window_explains_is_not_called_other_clients(admin_client):
    """The audit's sweep: at 2 threads the server's polls cover 50 of the step's 55 s (the step ends 5 s after
    its last poll) and its TPS there is 5.5 % over the load's rate across the whole step. Over those 50 s the
    load ran at most its whole count, 55 s × its rate: the server counted fewer than that, so no other client
    ran: the level says why the two differ and the curve keeps the server's TPS (knee at 2, as BASELINE's)."""
    runs = write_sweep(make_server("alone2"), "alone", "", RECENT_T0, BASELINE)
    Run.objects.filter(pk=runs[1].pk).update(ended_at=runs[1].ended_at + timedelta(seconds=5))
    server_2 = by_hand(2000)[0]  # 2040: (2020 + 2030 + 2040 + 2050 + 2060) / 5
    own_2 = 1933.6  # (2040 - 1933.6) / 2040 = 5.2 %; 1933.6 × 55 = 106,348 ≥ 2040 × 50 = 102,000 by the server
    own(runs, {1: by_hand(1000)[0] * 0.99, 2: own_2, 4: by_hand(2500)[0] * 1.01})
    response = admin_client.get("/scalability/", {"sweep": "alone"})
    html = response.content.decode()
    assert "others-note" not in html and "other clients:" not in html and "demo pause" not in html
    # By hand: 2040 / 1933.6 - 1 = 5.5 % above the load's own TPS (5.2 % is the share of the server's 2040)
    assert ("the server&#x27;s TPS is 5.5 % above the load&#x27;s own: the polls inside the step "
            "cover 50 of its 55 s, so the server&#x27;s TPS is of that part") in html
    fig = figures(response)["chart-scalability"]
    assert [a["text"] for a in fig["layout"]["annotations"]] == ["knee: 2 threads"]
    assert not [t for t in fig["data"] if t["meta"] == "own"]
    assert server_2 == pytest.approx(2040)


def test_a_surplus_beyond_the_polls_window_is_still_other_clients(admin_client):
    """Polls covering 50 of 55 s, the load at 1632 TPS: 1632 × 55 = 89,760 transactions at most over the
    server's 50 s, which counted 2040 × 50 = 102,000: 12 % of them beyond the load's whole count, others'."""
    runs = write_sweep(make_server("busy2"), "busy", "", RECENT_T0, BASELINE)
    Run.objects.filter(pk=runs[1].pk).update(ended_at=runs[1].ended_at + timedelta(seconds=5))
    own(runs, {1: by_hand(1000)[0], 2: 1632.0, 4: by_hand(2500)[0]})
    html = admin_client.get("/scalability/", {"sweep": "busy"}).content.decode()
    assert "other clients: 20.0 % of the transactions" in html  # (2040 - 1632) / 2040
    assert "others-note" in html
