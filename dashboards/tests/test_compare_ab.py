"""The compare page's A/B sentence over runs whose average TPS is known by construction."""

import csv
import io
import math
from datetime import timedelta
from html import escape

import pytest

from servers.models import Run
from testing.ab import write_runs
from testing.dashboards import RECENT_T0, make_server

pytestmark = pytest.mark.django_db


@pytest.fixture
def groups():
    server = make_server("ab")
    a = write_runs(server, "base", RECENT_T0, [1000.0, 1000.0, 1000.0], label="flush=2")
    b = write_runs(server, "tuned", RECENT_T0 + timedelta(hours=1), [1400.0, 1500.0, 1600.0], label="flush=0")
    return a, b


def ab_section(response) -> str:
    html = response.content.decode()
    return html[html.index('id="ab"'):html.index("</section>", html.index('id="ab"'))]


def test_b_over_a_with_its_interval_by_hand(admin_client, groups):
    a, b = groups
    response = admin_client.get("/compare/", {"a": ",".join(str(r.pk) for r in a),
                                              "b": ",".join(str(r.pk) for r in b)})
    assert response.status_code == 200
    half = 4.302653 * 100 / math.sqrt(3)  # A steady: B's own t interval (2 df) over A's mean
    section = ab_section(response)
    assert f"B is 1.50 times A (95 %: {(1500 - half) / 1000:.2f}-{(1500 + half) / 1000:.2f}, N=3, M=3)." in section
    assert 'href="#ab-runs"' in section and 'id="ab-runs"' in section
    assert section.count("<td><b>A</b></td>") == 3 and section.count("<td><b>B</b></td>") == 3
    assert "1,600.0" in section


def test_groups_by_label_and_from_the_runs_pages_b_column(admin_client, groups):
    a, b = groups
    by_label = ab_section(admin_client.get("/compare/", {"a_label": "flush=2", "b_label": "flush=0"}))
    assert "B is 1.50 times A" in by_label
    ticked = admin_client.get("/compare/", {"runs": [r.pk for r in a], "b": [r.pk for r in b]})
    assert "B is 1.50 times A" in ab_section(ticked)
    assert f'name="b" value="{a[0].pk}"' in admin_client.get("/runs/").content.decode()


def test_one_run_in_a_says_no_interval_can_be_given(admin_client, groups):
    a, b = groups
    section = ab_section(admin_client.get("/compare/", {"a": str(a[0].pk), "b": ",".join(str(r.pk) for r in b)}))
    assert "B is 1.50 times A (N=1, M=3): no interval can be given with one run in A: repeat it." in section


def test_bad_group_values_are_named_not_a_500(admin_client, groups):
    a, b = groups
    response = admin_client.get("/compare/", {"a": f"{a[0].pk},x", "b": f"{a[0].pk},{b[0].pk}", "b_label": ""})
    html = response.content.decode()
    assert response.status_code == 200
    assert "a: &#x27;x&#x27; is not a run id" in html and f"run {a[0].pk} is in both groups: kept in A only" in html
    assert admin_client.get("/compare/", {"a_label": "nul\x00"}).status_code == 200
    response = admin_client.get("/compare/", {"runs": f"{a[0].pk},{b[0].pk}", "wait": "wait/x\x00y"})
    assert response.status_code == 200 and "wait= holds a NUL byte" in response.content.decode()


SERVER_A, SERVER_B = [116.7, 223.8, 196.1], [365.6, 390.5, 154.8]
OWN_A, OWN_B = [54.7, 132.8, 109.8], [224.8, 260.7, 88.9]


def give_own(runs, own_tps) -> None:
    for run, tps in zip(runs, own_tps, strict=True):
        Run.objects.filter(pk=run.pk).update(client_figures={"tool": "stress", "tps": tps})


@pytest.fixture
def shared():
    """The demo's case: each run's server TPS counts other clients' transactions beside the load's own."""
    server = make_server("ab-shared")
    a = write_runs(server, "ab-A", RECENT_T0, SERVER_A, label="ab-A")
    b = write_runs(server, "ab-B", RECENT_T0 + timedelta(hours=1), SERVER_B, label="ab-B")
    return a, b


def test_the_ratio_reads_the_loads_own_tps_when_other_clients_ran(admin_client, shared):
    a, b = shared
    give_own(a, OWN_A)
    give_own(b, OWN_B)
    section = ab_section(admin_client.get("/compare/", {"a_label": "ab-A", "b_label": "ab-B"}))
    own_ratio = (sum(OWN_B) / 3) / (sum(OWN_A) / 3)  # 1.93, where the server's TPS gives 1.70
    assert f"B is {own_ratio:.2f} times A" in section and f"{own_ratio:.2f}" == "1.93"
    shares = [1 - o / s for o, s in zip(OWN_A + OWN_B, SERVER_A + SERVER_B, strict=True)]
    assert escape(f"from the load's own counts: other clients ran {min(shares) * 100:.1f}-{max(shares) * 100:.1f} % "
                  "of the server's transactions") in section


def test_a_run_without_its_own_count_warns_and_keeps_the_servers_tps(admin_client, shared):
    a, b = shared
    give_own(a, OWN_A)
    give_own(b[:2], OWN_B[:2])
    section = ab_section(admin_client.get("/compare/", {"a_label": "ab-A", "b_label": "ab-B"}))
    server_ratio = (sum(SERVER_B) / 3) / (sum(SERVER_A) / 3)
    assert f"B is {server_ratio:.2f} times A" in section and f"{server_ratio:.2f}" == "1.70"
    assert "Warning: other clients ran up to" in section and f"but {b[2].name} kept no count of its own" in section


def test_own_counts_within_five_per_cent_keep_the_servers_tps(admin_client, groups):
    a, b = groups
    give_own(a, [980.0, 1000.0, 1020.0])  # 2 % off the server's 1000: nobody else ran
    give_own(b, [1400.0, 1500.0, 1600.0])
    section = ab_section(admin_client.get("/compare/", {"a_label": "flush=2", "b_label": "flush=0"}))
    assert "B is 1.50 times A (95 %" in section and "own counts" not in section and "Warning" not in section


def test_a_server_counting_fewer_than_the_load_is_not_called_other_clients(admin_client, groups):
    a, b = groups
    give_own(a, [1000.0, 1000.0, 1100.0])  # the server counted 1000: (1000 - 1100) / 1000, 10 % fewer, on the third
    give_own(b, [1400.0, 1500.0, 1600.0])
    section = ab_section(admin_client.get("/compare/", {"a_label": "flush=2", "b_label": "flush=0"}))
    own_ratio = 1500.0 / (3100.0 / 3)
    assert f"B is {own_ratio:.2f} times A" in section
    # By hand: 1000 / 1100 - 1 = -9.1 %: the server's TPS 9.1 % below the load's own (10 % is of the server's)
    assert escape("from the load's own counts: the server's TPS was up to 9.1 % below the load's own.") in section


def stretched(admin_client, own_a: float) -> tuple[str, str]:
    """A: one run whose polls read 1000 TPS over 60 of its 66 s (it ends 6 s after its last poll), its load counting
    own_a over the 66 s; B: one run of 1500 TPS, counted alike by its load. The A/B section and A's run report."""
    server = make_server(f"ab-stretched-{own_a}")
    (a,) = write_runs(server, "stretched A", RECENT_T0, [1000.0], label="stretched-A")
    (b,) = write_runs(server, "stretched B", RECENT_T0 + timedelta(hours=1), [1500.0], label="stretched-B")
    Run.objects.filter(pk=a.pk).update(ended_at=a.ended_at + timedelta(seconds=6))
    give_own([a], [own_a])
    give_own([b], [1500.0])
    section = ab_section(admin_client.get("/compare/", {"a": str(a.pk), "b": str(b.pk)}))
    return section, admin_client.get(f"/runs/{a.pk}/report/").content.decode()


def test_a_surplus_the_polls_window_explains_keeps_the_servers_tps_as_the_run_report_does(admin_client):
    """A's server counted 1000 TPS, its load 940: 6 % more, over the 5 % threshold. But over the 60 s its polls
    cover the load ran at most its whole count, 940 × 66 = 62,040 transactions, more than the server's
    1000 × 60 = 60,000: no other client ran, as A's run report says. The ratio reads the servers' TPS,
    1500 / 1000, not the loads' 1500 / 940 = 1.60."""
    section, report = stretched(admin_client, 940.0)
    assert "B is 1.50 times A (N=1, M=1)" in section
    assert "own counts" not in section and "other clients" not in section and "Warning" not in section
    assert "other clients" not in report


def test_a_surplus_beyond_the_polls_window_is_other_clients_on_both_pages(admin_client):
    """A's load at 750 TPS: 750 × 66 = 49,500 transactions at most over the server's 60 s, which counted
    1000 × 60 = 60,000: others ran, on the compare page as on the run report. The ratio reads the loads' own
    TPS, 1500 / 750; others ran (1000 - 750) / 1000 = 25.0 % of A's server transactions, none of B's."""
    section, report = stretched(admin_client, 750.0)
    assert "B is 2.00 times A (N=1, M=1)" in section
    assert escape("from the load's own counts: other clients ran 0.0-25.0 % of the server's transactions") in section
    assert "other clients: 25.0 % of the transactions" in report


def test_the_compare_csv_has_the_loads_own_tps_the_ratio_read(admin_client, shared):
    """compare.csv had each run's server TPS only: where other clients ran, the A/B ratio reads the loads' own
    TPS, which no column held, so the ratio the page gave could not be recomputed from the CSV."""
    a, b = shared
    give_own(a, OWN_A)
    give_own(b, OWN_B)
    response = admin_client.get("/export/compare.csv", {"runs": ",".join(str(r.pk) for r in a + b)})
    header, *rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))
    own = [float(row[header.index("load's own TPS (/s)")]) for row in rows]
    others = [float(row[header.index("other clients (share of server TPS)")]) for row in rows]
    assert own == OWN_A + OWN_B
    # By hand: (server - own) / server, e.g. (116.7 - 54.7) / 116.7 = 0.531 for the first run.
    assert others == pytest.approx([(s - o) / s for s, o in zip(SERVER_A + SERVER_B, OWN_A + OWN_B, strict=True)])
    assert round((sum(own[3:]) / 3) / (sum(own[:3]) / 3), 2) == 1.93  # the page's "B is 1.93 times A"
