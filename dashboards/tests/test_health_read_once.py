"""A server's page reads its health row once, however many of its readers ask (texts, problems, unreachable)."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from collectors.models import ServerHealth
from store.ingest import write_samples
from store.sample import Sample
from testing.servers import make_server

PAGES = ["stability", "waits", "pressure", "host", "purge", "replication", "statements"]


@pytest.fixture
def polled():
    server = make_server()
    now = timezone.now().replace(microsecond=0)
    write_samples(Sample(server.pk, "history_length", now - timedelta(seconds=10 * i), None,
                         {"history_list_length": 5000 - 300 * i}) for i in range(10))
    off = {"ok": False, "status": "off", "error": "lab: oldest_trx: INNODB_TRX needs the PROCESS privilege"}
    ServerHealth.objects.create(server=server, last_poll_at=now, last_success_at=now, polls=10,
                                sources={"oldest_trx": off, "global_status": {"ok": True, "status": "ok"}})
    return server


@pytest.mark.parametrize("page", PAGES)
def test_it_reads_the_health_row_once(admin_client, polled, page):
    url = f"/servers/{polled.pk}/{page}/?range=1h"
    assert admin_client.get(url).status_code == 200
    with CaptureQueriesContext(connection) as queries:
        assert admin_client.get(url).status_code == 200
    health = [q["sql"] for q in queries.captured_queries if 'FROM "collectors_serverhealth"' in q["sql"]]
    assert len(health) == 1, health
