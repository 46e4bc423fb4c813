"""A sweep with a level that has no poll inside its window (the server down for that step): no TPS there, and the
knee, gains, efficiency and waits read the levels around it, not a step that gained nothing."""

from datetime import timedelta

import pytest

from servers.models import Run
from testing.dashboards import RECENT_T0, figures, get_csv, make_server
from testing.scalability import STEP, page, write_sweep

pytestmark = pytest.mark.django_db

# Polls at 1, 2 and 8 threads; the 4-thread step ran while nothing polled the server.
MEASURED = {1: 1000, 2: 2000, 8: 7000}


@pytest.fixture
def sweep():
    server = make_server("lab-down")
    runs = write_sweep(server, "down at 4", "", RECENT_T0, MEASURED)
    after = RECENT_T0 + timedelta(hours=1)  # an hour after the others, with no polls at all
    Run.objects.create(name="down at 4 x4", server=server, started_at=after, ended_at=after + timedelta(seconds=STEP),
                       warmup_seconds=10, concurrency=4, sweep="down at 4")
    return runs


def test_a_level_without_polls_is_stepped_over_not_read_as_the_knee(admin_client, admin_user, sweep):
    # By hand: the polls inside each window read base + 40 TPS (testing/scalability.inside_rates: base + 10 j,
    # j = 2..6), so 1040, 2040 and 7040 TPS. 1 -> 2 gains 1000 / 1040 = 96 % of one thread's TPS per added thread,
    # 2 -> 8 gains (7040 - 2040) / 6 / 1040 = 80 %: both over 50 %, so no knee up to 8 threads. Reading the
    # unpolled 4 as a step that gained nothing put the knee at 2 threads.
    response = page(admin_client, admin_user, sweep="down at 4")
    assert response.status_code == 200
    html = response.content.decode()
    assert "no knee up to <b>8 threads</b>" in html and "knee at <b>2 threads</b>" not in html
    assert "No poll inside the window at 4 threads, so no TPS there" in html
    assert "Fewer than 3 samples inside the window at 4 threads" not in html
    fig = figures(response)["chart-scalability"]
    assert [a["text"] for a in fig["layout"]["annotations"]] == ["still scaling at 8 threads"]
    rows = get_csv(admin_client, "/export/scalability.csv", sweep="down at 4")
    gain, eff = (next(i for i, h in enumerate(rows[0]) if h.startswith(name)) for name in ("gain", "efficiency"))
    got = {r[3]: (r[gain], r[eff]) for r in rows[1:]}
    assert float(got["8"][0]) == pytest.approx(5000 / 6 / 1040, rel=1e-4)
    assert float(got["8"][1]) == pytest.approx(7040 / 8 / 1040, rel=1e-4)
    assert got["4"] == ("", "")


def test_a_top_level_without_polls_does_not_hide_a_saturated_cpu(admin_client, admin_user):
    # Seen live: a 32-thread step recorded through the API at a time nothing polled, above a sweep whose host was
    # 99.7-100.0 % busy from 1 thread on. The run of saturated levels was read down from the top level, which has
    # no busy share, so none counted. By hand: 95 % busy at every level with polls, over 90 %: saturated from 1.
    server = make_server("lab-busy")
    write_sweep(server, "busy", "", RECENT_T0, MEASURED, busy_pct={c: 95.0 for c in MEASURED})
    after = RECENT_T0 + timedelta(hours=1)
    Run.objects.create(name="busy x16", server=server, started_at=after, ended_at=after + timedelta(seconds=STEP),
                       warmup_seconds=10, concurrency=16, sweep="busy")
    words = " ".join(page(admin_client, admin_user, sweep="busy").content.decode().split())
    assert "Host CPU saturated</b> (95.0 % busy of 2 CPUs) from 1 thread on" in words
    assert "Host CPU not saturated" not in words
