"""A rule saved before the checks the form makes now (a source no poll reports, an X every reading is above) is
not judged as it is: the Alerts page says why it fails until it is edited, and it mails nothing."""

from datetime import timedelta

import pytest
from django.utils import timezone

from alerts.evaluation import evaluate_all
from alerts.models import Event, Notification, Rule
from collectors.record import record
from collectors.results import PollResult, SourceResult
from testing.alerts import history, make_rule

pytestmark = pytest.mark.django_db


def test_a_rule_watching_no_source_there_is_says_so_until_it_is_edited(admin_client, server):
    now = timezone.now()
    typo = make_rule(name="Status failing", kind=Rule.SOURCE_FAILING, metric="", threshold=0, source="global_statu")
    record([server], [PollResult(server.id, server.name, now, sources=[
        SourceResult("global_status", "failed", error="boom"), SourceResult("history_length", "ok")])])
    evaluate_all(now)
    typo.refresh_from_db()
    assert typo.failing.startswith("cannot be judged as saved: Unknown source 'global_statu'")
    assert typo.failing_since == now
    assert "fails to evaluate since" in admin_client.get("/alerts/").content.decode()

    Rule.objects.filter(id=typo.id).update(source="global_status")  # edited
    evaluate_all(now + timedelta(seconds=15))
    typo.refresh_from_db()
    assert (typo.failing, typo.failing_since) == ("", None)
    assert Event.objects.get(rule=typo).key == "global_status"  # now judged: global_status fails


def test_a_history_rule_above_a_negative_x_mails_nothing(server):
    now = timezone.now()
    # Every history length is above -5: judged as saved, it fired at once on every server.
    below = make_rule(name="History above -5", threshold=-5)
    history(server, [0, 10, 20], now)
    evaluate_all(now)
    below.refresh_from_db()
    assert "X=-5 must be a positive history length" in below.failing
    assert not Event.objects.filter(rule=below).exists()
    assert not Notification.objects.filter(event__rule=below).exists()
