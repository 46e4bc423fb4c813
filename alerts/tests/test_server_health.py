"""A second MariaDB of the test's own: stopped, it raises one unreachable alert; restarted with
performance_schema OFF, one source-failing alert. Each clears with one resolved mail. Registered while
performance_schema is OFF (MariaDB's default), it raises none: the server pages say how to turn it on."""


from datetime import timedelta

import pytest
from django.utils import timezone

from alerts import outbox, sending
from alerts.builtin import ensure_builtin_rules
from alerts.evaluation import evaluate_all
from alerts.models import Event, Rule
from collectors.batch import poll_server
from collectors.models import PollRecord, ServerHealth
from testing.mariadb import running_sandbox
from testing.servers import make_server

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def own_mariadb():
    with running_sandbox("steadystate-alerts-") as server:
        yield server


def cycle(server_id: int, *sources: str) -> None:
    poll_server(server_id, only=list(sources))  # due now, however recent the last poll
    evaluate_all()
    sending.send_due(timezone.now() + outbox.GATHER)  # a source-failing mail waits for its server's others


def builtin(key: str, **fields) -> Rule:
    ensure_builtin_rules()
    Rule.objects.filter(builtin=key).update(recipients=["oncall@example.com"], cooldown_minutes=0, **fields)
    return Rule.objects.get(builtin=key)


def test_it_mails_once_when_a_server_stops_answering_and_once_when_it_is_back(own_mariadb, inbox):
    rule = builtin("unreachable", threshold=2)
    server = make_server("lab-db", port=own_mariadb.port)
    cycle(server.id, "global_status")
    own_mariadb.stop()
    try:
        for _ in range(4):  # fires at the second failed poll, stays quiet at the next two
            cycle(server.id, "global_status")
    finally:
        own_mariadb.start()
    assert inbox.subjects() == [f"[SteadyState] FIRING: {rule.name} on lab-db"]
    assert "4 polls in a row failed" not in inbox.text(0) and "2 polls in a row failed" in inbox.text(0)
    assert "cannot connect" in inbox.text(0)
    assert Event.objects.get(rule=rule).value == 4

    cycle(server.id, "global_status")
    cycle(server.id, "global_status")
    assert inbox.subjects()[1:] == [f"[SteadyState] RESOLVED: {rule.name} on lab-db"]
    # It ended when the server answered the first successful poll after the failures (the second of the test):
    # that poll's end, not its start nor the evaluation.
    back = PollRecord.objects.filter(server=server, ok=True).order_by("started_at")[1]
    assert Event.objects.get(rule=rule).ended_at == back.started_at + timedelta(milliseconds=back.duration_ms)


def test_it_mails_when_performance_schema_is_turned_off(own_mariadb, inbox):
    rule = builtin("source-failing")
    server = make_server("lab-db", port=own_mariadb.port)
    cycle(server.id, "global_status", "pfs_waits")
    assert inbox.messages == []
    own_mariadb.restart(performance_schema=False)
    try:
        # global_status finds the pooled connection broken and reopens it; pfs_waits then says why it cannot run.
        cycle(server.id, "global_status", "pfs_waits")
        cycle(server.id, "global_status", "pfs_waits")
    finally:
        own_mariadb.restart(performance_schema=True)
    assert inbox.subjects() == [f"[SteadyState] FIRING: {rule.name} on lab-db"]
    assert "source pfs_waits failing" in inbox.text(0) and "performance_schema" in inbox.text(0)
    assert Event.objects.get(rule=rule).key == "pfs_waits"

    cycle(server.id, "global_status", "pfs_waits")
    assert inbox.subjects()[1:] == [f"[SteadyState] RESOLVED: {rule.name} on lab-db"]


def test_it_stays_quiet_for_a_server_registered_with_performance_schema_off(own_mariadb, inbox):
    rule = builtin("source-failing")
    own_mariadb.restart(performance_schema=False)
    try:
        server = make_server("lab-db", port=own_mariadb.port)
        cycle(server.id, "global_status", "pfs_waits")
        cycle(server.id, "global_status", "pfs_waits")
    finally:
        own_mariadb.restart(performance_schema=True)
    assert ServerHealth.objects.get(server=server).sources["pfs_waits"]["status"] == "off"
    assert inbox.messages == [] and not Event.objects.filter(rule=rule).exists()
