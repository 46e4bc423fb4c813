"""The top waits page, the Statements tab and a statement's page divide by the range's transactions: they say
what those count, and where that is explicit transactions only (a MariaDB with performance_schema ON at its other
defaults: no transaction instrument, InnoDB's trx counters off), the statement that counts every transaction.

Seen live (fresh-eyes audit): sysbench autocommit UPDATEs at 500/s beside explicit transactions at 10/s read
"transactions 725, waits per trx 2.482 ms" over 80 s, with nothing on the page saying that the 40,000 autocommit
transactions were not counted: by hand the waits were 2.482 ms x 725 = 1.80 s over about 40,725 transactions,
0.044 ms each."""

from datetime import timedelta

import pytest
from django.utils.html import escape

from collectors.models import ServerHealth
from collectors.transactions import DEFINITIONS, EXPLICIT, INNODB_TRX, INNODB_TRX_ON
from store.ingest import write_samples
from store.sample import Sample
from store.statement_reads import totals
from testing import dashboards as data
from testing import statements as digests

pytestmark = pytest.mark.django_db
T0 = data.RECENT_T0
POLLS = 12
WAIT = "wait.time_ps:wait/io/table/sql/handler"
# As the collector stores them: tps is the delta of the first counter the poll read, stored beside it.
EXPLICIT_POLL = {"tps": 50, "tps_explicit": 50, "qps": 2_500}  # 10 explicit trx/s beside 500 autocommit UPDATEs
INNODB_POLL = {"tps": 2_550, "tps_innodb": 2_550, "tps_explicit": 50, "qps": 2_500}  # the same load, counted


def server_with(poll: dict, now: str):
    """A MariaDB 10.11 polled every 5 s from T0 on, its TPS counted as `poll` says, 0.1 s waited each poll."""
    server = data.make_server("defaults", poll_interval=5, flavor="mariadb", version="10.11.19")
    ts = [T0 + timedelta(seconds=5 * i) for i in range(1, POLLS + 1)]
    write_samples([Sample(server.pk, "global_status", t, 5.0, poll, frozenset(poll)) for t in ts]
                  + [Sample(server.pk, "pfs_waits", t, 5.0, {WAIT: 10**11}, frozenset({WAIT})) for t in ts])
    ServerHealth.objects.create(server=server, sources={"global_status": {"ok": True, "note": DEFINITIONS[now]}})
    return server


def per_trx_part(admin_client, server) -> str:
    body = admin_client.get(f"/servers/{server.pk}/waits/", {
        "from": T0.isoformat(), "to": (T0 + timedelta(seconds=5 * POLLS + 2)).isoformat()}).content.decode()
    return body.split('class="per-trx"')[1].split("</section>")[0]


def test_it_says_the_transactions_per_trx_divides_by_are_explicit_only(admin_client):
    part = per_trx_part(admin_client, server_with(EXPLICIT_POLL, now=EXPLICIT))
    # The 12 polls of the range (the first one's delta began at its start): 12 x 50 = 600 transactions and
    # 12 x 0.1 s = 1.2 s waited, 2.000 ms each: a figure over explicit transactions only, which the page now says.
    assert ">600<" in part and "2.000 ms" in part
    assert escape(DEFINITIONS[EXPLICIT]) in part
    assert escape(INNODB_TRX_ON) in part  # the statement that counts every transaction


def test_it_names_the_counter_where_every_transaction_is_counted(admin_client):
    part = per_trx_part(admin_client, server_with(INNODB_POLL, now=INNODB_TRX))
    assert escape(DEFINITIONS[INNODB_TRX]) in part
    assert escape(DEFINITIONS[EXPLICIT]) not in part and escape(INNODB_TRX_ON) not in part


def statements_text(admin_client, server) -> str:
    digests.write_reads(server.pk, T0, 1, interval_s=60)  # one read, T0 to T0 + 60 s, as the polls
    body = admin_client.get(f"/servers/{server.pk}/statements/", {
        "from": T0.isoformat(), "to": (T0 + timedelta(seconds=5 * POLLS + 2)).isoformat()}).content.decode()
    return body.split("Per transaction:")[1].split("</p>")[0]


def test_the_statements_tab_says_its_transactions_are_explicit_only(admin_client):
    text = statements_text(admin_client, server_with(EXPLICIT_POLL, now=EXPLICIT))
    assert "over the 600 transactions" in text  # the 12 polls' 12 x 50 in the read's 60 s
    assert escape(DEFINITIONS[EXPLICIT]) in text and escape(INNODB_TRX_ON) in text


def test_the_statements_tab_names_the_counter_of_every_transaction(admin_client):
    text = statements_text(admin_client, server_with(INNODB_POLL, now=INNODB_TRX))
    assert escape(DEFINITIONS[INNODB_TRX]) in text and escape(INNODB_TRX_ON) not in text


def statement_page_text(admin_client, server) -> str:
    digests.write_reads(server.pk, T0, 1, interval_s=60)
    end = T0 + timedelta(seconds=5 * POLLS + 2)
    did = next(r.digest_id for r in totals(server.pk, T0, end) if r.digest == digests.SLEEPY.digest)
    body = admin_client.get(f"/servers/{server.pk}/statements/{did}/", {
        "from": T0.isoformat(), "to": end.isoformat()}).content.decode()
    return body.split("time per transaction</th>")[1].split("</p>")[0]


def test_a_statement_page_says_its_transactions_are_explicit_only(admin_client):
    text = statement_page_text(admin_client, server_with(EXPLICIT_POLL, now=EXPLICIT))
    # SLEEPY: 10 executions of 50 ms in the read, 0.5 s over the 600 transactions: 833.33 us each.
    assert "833.33 µs" in text and "over the 600 transactions" in text
    assert escape(DEFINITIONS[EXPLICIT]) in text and escape(INNODB_TRX_ON) in text


def test_a_statement_page_names_the_counter_of_every_transaction(admin_client):
    text = statement_page_text(admin_client, server_with(INNODB_POLL, now=INNODB_TRX))
    assert escape(DEFINITIONS[INNODB_TRX]) in text and escape(INNODB_TRX_ON) not in text
