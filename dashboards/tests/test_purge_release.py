"""The purge page, the fleet and the purge-lag e-mail say the same about the same polls around a release."""

from datetime import timedelta

import pytest
from django.utils import timezone

from alerts.readings import purge_reading
from store.ingest import write_samples
from store.sample import Sample
from testing.dashboards import get_csv
from testing.purge_release import RELEASE, TO_ZERO
from testing.servers import make_server

pytestmark = pytest.mark.django_db
STEP = 5
TREND_CELL = "history trend (per min, since the last turn)"


def stored(values: list[float]):
    """The polls 5 s apart, the last 2 s before now; (server, poll times)."""
    server = make_server()
    end = timezone.now().replace(microsecond=0) - timedelta(seconds=2)
    ts = [end - timedelta(seconds=STEP * (len(values) - 1 - i)) for i in range(len(values))]
    write_samples(Sample(server.pk, "history_length", t, float(STEP), {"history_list_length": v})
                  for t, v in zip(ts, values, strict=True))
    return server, ts


def said(admin_client, server):
    context = admin_client.get(f"/servers/{server.pk}/purge/?range=15m&threshold=20000").context
    rows = get_csv(admin_client, "/export/fleet.csv")
    fleet = rows[1][rows[0].index(TREND_CELL)]
    return context, fleet, purge_reading(server.pk, timezone.now(), 20_000)


def test_after_the_release_page_fleet_and_mail_say_flat_since_the_floor(admin_client):
    """The segment tests reason it by hand: flat since 380, the 5th poll; 296 now."""
    server, ts = stored(RELEASE)
    context, fleet, mail = said(admin_client, server)
    trend = context["trend"]
    assert trend.direction == "flat" and trend.since == ts[4] and context["verdict"].kind == "flat"
    assert float(fleet) == 0.0  # the fleet's flat
    assert mail == f"Flat at 296 since {ts[4]:%H:%M:%S} UTC: purge keeps up."
    body = admin_client.get(f"/servers/{server.pk}/purge/?range=15m").content.decode()
    assert "71,957" not in body and "empty in 0 s" not in body


def test_at_zero_for_two_minutes_page_fleet_and_mail_say_flat(admin_client):
    server, ts = stored(RELEASE + TO_ZERO)
    context, fleet, mail = said(admin_client, server)
    first_zero = ts[len(RELEASE) + 4]
    assert context["trend"].direction == "flat" and context["trend"].since == first_zero
    assert float(fleet) == 0.0
    assert mail == f"Flat at 0 since {first_zero:%H:%M:%S} UTC: purge keeps up."
    verdict = admin_client.get(f"/servers/{server.pk}/purge/?range=15m").content.decode()
    verdict = verdict.split('id="purge-verdict"')[1].split("</section>")[0]
    assert "Flat</strong> at 0" in verdict and "Draining" not in verdict


def test_a_drain_just_at_zero_says_empty_now_not_empty_in_0_s(admin_client):
    server, _ = stored(RELEASE + TO_ZERO[:5])  # the newest poll is the first 0, the drain still on
    context, _, mail = said(admin_client, server)
    assert context["verdict"].kind == "draining" and context["verdict"].to_empty is None
    assert mail.endswith("empty now (the history length is 0).") and "empty in 0 s" not in mail
