"""A failing source's alert starts at the read that found it failing, not at a later poll of the other sources."""

from datetime import timedelta

import pytest
from django.utils import timezone

from alerts.evaluation import evaluate_all
from alerts.models import Event, Rule
from collectors.models import ServerHealth
from testing.servers import make_server

pytestmark = pytest.mark.django_db


def test_a_source_read_less_often_than_the_polls_fires_since_its_own_read():
    server, now = make_server("slow-source"), timezone.now().replace(microsecond=0)
    read = now - timedelta(seconds=20)  # the statements read (every 60 s) that found its consumer off
    # Two 10 s polls of the other sources came after it: the health row holds the newest, at `now`.
    ServerHealth.objects.create(server=server, last_poll_at=now, last_success_at=now, sources={
        "statements": {"at": read.isoformat(), "ok": False, "status": "off", "worked": True, "error": "consumer off"}})
    rule = Rule.objects.create(name="sources", kind=Rule.SOURCE_FAILING, recipients=["oncall@example.com"])
    evaluate_all(now)
    event = Event.objects.get(rule=rule)
    assert event.firing and event.since == read  # 20 s before the newest poll, as the data says
