"""A held read view makes history length grow on a real MariaDB; the alert mails once, then resolves once."""


import pytest

from alerts import sending
from alerts.evaluation import evaluate_all
from alerts.models import Event
from collectors.batch import poll_server
from testing.alerts import WRITES, history_now, make_rule, until
from testing.servers import make_server

pytestmark = pytest.mark.django_db



def cycle(server_id: int) -> None:
    """What the beat does: a poll, then an evaluation, then the sender."""
    poll_server(server_id, only=["history_length"])  # due now, however soon after the previous poll
    evaluate_all()
    sending.send_due()


@pytest.fixture
def workload(mariadb):
    mariadb.execute("CREATE DATABASE IF NOT EXISTS alerts_e2e",
                    "CREATE TABLE IF NOT EXISTS alerts_e2e.t (id INT PRIMARY KEY, v INT) ENGINE=InnoDB",
                    "REPLACE INTO alerts_e2e.t VALUES (1, 0)")
    reader, writer = mariadb.connect(), mariadb.connect()
    yield reader, writer
    reader.close()
    writer.close()


def test_it_mails_once_when_history_grows_and_once_when_it_clears(mariadb, workload, inbox):
    reader, writer = workload
    server = make_server("e2e-mariadb", port=mariadb.port)
    poll_server(server.id, only=["history_length"])
    baseline = history_now(server.id)
    rule = make_rule(name="History grows past baseline", threshold=baseline + WRITES // 2)

    with reader.cursor() as cur:  # a read view that purge must respect until it ends
        cur.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT")
        cur.execute("SELECT v FROM alerts_e2e.t WHERE id = 1")
    with writer.cursor() as cur:
        for _ in range(WRITES):
            cur.execute("UPDATE alerts_e2e.t SET v = v + 1 WHERE id = 1")

    cycle(server.id)
    grown = history_now(server.id)
    assert grown >= WRITES  # older history may be purged meanwhile, not ours
    cycle(server.id)  # a second evaluation while it still fires: no second mail
    assert len(inbox.messages) == 1
    assert inbox.subjects()[0] == f"[SteadyState] FIRING: {rule.name} on e2e-mariadb ({grown:,.0f})"
    assert f"Server:    e2e-mariadb (127.0.0.1:{mariadb.port})" in inbox.text(0)
    assert Event.objects.get(rule=rule).firing

    reader.commit()  # purge may now run
    until(lambda: cycle(server.id) or len(inbox.messages) == 2)
    assert inbox.subjects()[1] == f"[SteadyState] RESOLVED: {rule.name} on e2e-mariadb"
    cycle(server.id)
    assert len(inbox.messages) == 2
    assert not Event.objects.get(rule=rule).firing
