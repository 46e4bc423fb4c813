"""The run report, the compare page and the compare report say why a run's figures are empty or short in the
same words, each from one partial: the warm-up that leaves nothing, the wait instruments off, the missed polls.

The HTML expected is what the pages rendered before the partials (each page dumped before and after: no byte
differed), written out here by hand.
"""

from datetime import timedelta

import pytest

from servers.models import Run
from testing import dashboards as data

pytestmark = pytest.mark.django_db
T0 = data.RECENT_T0
WEAKENED = ('<p class="warn {}waits-weakened">These waits leave out what this server does not count: 288 of 288 '
            'wait/synch/% instruments (enabled and timed) off in every poll of this range')
OVERRUN = ("Its warm-up of 600 s is as long as the run (120 s) or longer: nothing of the run is left after it, so it "
           "has no figures. Give the run a shorter warm-up (Admin → Runs), or compare it with a warm-up trim under "
           "120 s (warmup=).")
MISSED = "(a poll whose interval spans missed polls averages the outage: it counts in the {})"


@pytest.fixture
def runs():
    """Two runs at MariaDB's defaults (every wait/synch instrument off); the second's warm-up outlasts it."""
    server = data.at_pfs_defaults(T0)
    end = T0 + timedelta(minutes=5)
    a = Run.objects.create(name="a", server=server, started_at=T0, ended_at=T0 + timedelta(minutes=2))
    b = Run.objects.create(name="b", server=server, started_at=T0 + timedelta(minutes=3), ended_at=end,
                           warmup_seconds=600)
    return server, a, b


def test_the_run_report_says_them_as_before(admin_client, runs):
    _, a, b = runs
    body = admin_client.get(f"/runs/{b.pk}/report/").content.decode()
    assert f'<p class="warn warmup-overrun">{OVERRUN}</p>' in body
    assert MISSED.format("averages, not here") + "." in body
    assert WEAKENED.format("small ") in admin_client.get(f"/runs/{a.pk}/report/").content.decode()


def test_the_compare_page_and_report_say_them_as_before(admin_client, runs):
    _, a, b = runs
    page = admin_client.get("/compare/", {"runs": f"{a.pk},{b.pk}"}).content.decode()
    assert f'<br><span class="warn small warmup-overrun">{OVERRUN}</span>' in page
    assert page.count(WEAKENED.format("small ")) == 2 and MISSED.format("average only") in page
    report = admin_client.get("/reports/compare/", {"runs": f"{a.pk},{b.pk}"}).content.decode()
    assert f'<br><span class="warn small warmup-overrun">{OVERRUN}</span>' in report
    assert MISSED.format("averages only") in report


def test_the_waits_page_says_the_instruments_off_as_before(admin_client, runs):
    server = runs[0]
    window = {"from": T0.isoformat(), "to": (T0 + timedelta(minutes=5)).isoformat()}
    assert WEAKENED.format("card ") in admin_client.get(f"/servers/{server.pk}/waits/", window).content.decode()
