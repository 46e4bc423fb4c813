"""Purge counters switched off after they were collected: the purge page flags them from the newest poll,
with the statement Test connection gives for them."""

import pytest
from django.utils.html import escape

from collectors.batch import poll_server
from collectors.probe import check_server
from dashboards import reads
from dashboards.views.server import ENABLE_PURGE_CONFIG, ENABLE_PURGE_SQL
from servers.models import Server

pytestmark = pytest.mark.django_db
WANTED = reads.PURGE_COUNTERS + [reads.PURGE_DELAY]
STATUS_SQL = "SELECT NAME, ENABLED FROM information_schema.INNODB_METRICS WHERE NAME LIKE 'purge%'"  # MariaDB 10.5+


@pytest.fixture
def server(mariadb, monitor_credentials) -> Server:
    server = Server(name="purge-off", host="127.0.0.1", port=mariadb.port, user="steady", poll_interval=1)
    server.password = monitor_credentials["password"]
    server.save()
    return server


@pytest.fixture
def purge_counters_back(mariadb):
    """Each purge counter's state put back as it was: the suite's MariaDB is shared."""
    before = mariadb.execute(STATUS_SQL)
    yield
    for name, status in before:
        verb = "enable" if int(status) else "disable"
        mariadb.execute(f"SET GLOBAL innodb_monitor_{verb} = '{name}'")


def poll_metrics(server: Server, times: int = 2) -> None:
    for _ in range(times):  # a counter's first read is its baseline: the second gives its sample
        (source,) = poll_server(server.pk, only=["innodb_metrics"]).sources
        assert source.ok, source.error


def test_counters_turned_off_after_being_collected_are_flagged(admin_client, mariadb, server, purge_counters_back):
    mariadb.execute("SET GLOBAL innodb_monitor_enable = 'purge%'")
    poll_metrics(server)
    collected, off = reads.purge_counters(server.pk)
    assert collected == WANTED and off == []
    page = admin_client.get(f"/servers/{server.pk}/purge/").content.decode()
    assert "Purge counters that are off" not in page

    mariadb.execute("SET GLOBAL innodb_monitor_disable = 'purge_%'")  # the finding's statement
    poll_metrics(server)
    collected, off = reads.purge_counters(server.pk)
    assert collected == WANTED and off == WANTED  # the store still has them; the newest poll does not
    page = admin_client.get(f"/servers/{server.pk}/purge/").content.decode()
    card = page.split("Purge counters that are off on this server")[1].split("</section>")[0]
    assert all(f"<code>{m}</code>" in card for m in WANTED)
    assert escape(ENABLE_PURGE_SQL) in card and escape(ENABLE_PURGE_CONFIG) in card
    # The option file's innodb_monitor_enable is one list: a second line would replace the user's own.
    assert ("line already, add <code>,purge%,trx_undo%</code> to the end of its list instead (inside its quotes"
            in " ".join(card.split()))
    # Test connection names the same statement and option file line for the same counters.
    (purge,) = [w for w in check_server(server).weakened if w.figure == "purge counters"]
    assert ENABLE_PURGE_SQL in purge.fix and ENABLE_PURGE_CONFIG in purge.fix
    # ... and counts the counters the page lists as off (it said 8 where the page listed 5: purge_stop_count,
    # purge_resume_count and trx_undo_* are off too, and no page draws them).
    assert len(WANTED) == 5 and purge.setting.startswith("5 of the purge page's 5 InnoDB purge counters")
    assert ("line already, add ,purge%,trx_undo% to the end of its list (inside its quotes, before any # comment): "
            "a second line replaces the first") in purge.fix

    mariadb.execute("SET GLOBAL innodb_monitor_enable = 'purge%'")  # the page's statement turns every one on
    poll_metrics(server)
    assert reads.purge_counters(server.pk)[1] == []


def test_a_user_without_process_is_told_what_to_grant_not_to_enable_the_counters(admin_client, mariadb):
    """INNODB_METRICS needs PROCESS: the card said the counters were off and gave innodb_monitor_enable, which the
    monitoring user's missing grant makes no difference to."""
    mariadb.create_monitor_user("purge_noprocess", "pw-purge-noprocess", grants=False)
    server = Server(name="no-process", host="127.0.0.1", port=mariadb.port, user="purge_noprocess", poll_interval=1)
    server.password = "pw-purge-noprocess"
    server.save()
    (source,) = poll_server(server.pk, only=["innodb_metrics"]).sources
    assert not source.ok and "missing privilege" in source.error
    page = admin_client.get(f"/servers/{server.pk}/purge/").content.decode()
    card = " ".join(page.split("Purge counters that are off on this server")[1].split("</section>")[0].split())
    assert "<code>INNODB_METRICS</code> cannot be read, so none of them is collected: missing privilege" in card
    assert "GRANT PROCESS, BINLOG MONITOR, SLAVE MONITOR ON *.* TO &#x27;purge_noprocess&#x27;@&#x27;%&#x27;;" in card
    assert escape(ENABLE_PURGE_SQL) not in card
