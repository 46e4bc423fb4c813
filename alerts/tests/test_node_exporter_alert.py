"""A host agent that stops answering fires the source-failing alert for node_exporter, and its mail names it;
an answer again resolves it. The server's SQL sources are polled all along."""

import pytest
from django.utils import timezone

from alerts import outbox, sending
from alerts.evaluation import evaluate_all
from alerts.models import Event, Rule
from collectors.batch import poll_server
from collectors.http_fetch import HTTP_POOL
from collectors.pool import POOL
from servers.models import Server
from testing.mariadb import free_port
from testing.servers import make_server

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def fresh_connections():
    yield
    POOL.close_all()
    HTTP_POOL.close_all()


def cycle(server_id: int) -> None:
    result = poll_server(server_id, only=["global_status", "node_exporter"])
    assert result.ok and {s.name: s for s in result.sources}["global_status"].ok  # the SQL side goes on
    evaluate_all()
    sending.send_due(timezone.now() + outbox.GATHER)  # a source-failing mail waits for its server's others


def test_a_silent_node_exporter_fires_and_resolves_the_source_failing_alert(mariadb, node_exporter_url, inbox):
    rule = Rule.objects.create(name="host agent", kind=Rule.SOURCE_FAILING, source="node_exporter",
                               recipients=["oncall@example.com"], cooldown_minutes=0)
    down = f"http://127.0.0.1:{free_port()}/metrics"
    server = make_server("with-agent", port=mariadb.port, node_exporter_url=down)
    cycle(server.id)
    event = Event.objects.get(rule=rule)
    assert event.firing and event.key == "node_exporter"
    (mail,) = inbox.messages
    assert "with-agent" in mail["Subject"] and "connection refused" in mail.get_body(("plain",)).get_content()

    Server.objects.filter(pk=server.pk).update(node_exporter_url=node_exporter_url)
    cycle(server.id)
    event.refresh_from_db()
    assert not event.firing
    assert len(inbox.messages) == 2
