"""The history-length e-mails carry the purge page's verdict: held by a read view, or purge-bound."""

from datetime import UTC, timedelta

import pytest
from django.utils import timezone

from alerts import sending
from alerts.evaluation import evaluate_all
from collectors.models import TrxHolder
from store.ingest import write_samples
from store.sample import Sample
from testing.alerts import history, make_rule
from testing.servers import make_server

pytestmark = pytest.mark.django_db


def fire(server, values, now) -> None:
    """History growing 600 a 10 s poll (3,600 / min) up to now, a rule at 10,000, the beat's evaluation."""
    history(server, values, now)
    make_rule(name="History above 10k", threshold=10_000)
    evaluate_all()
    sending.send_due()


def test_the_firing_mail_names_the_read_view_that_holds_purge(inbox):
    server, now = make_server("held"), timezone.now().replace(microsecond=0)
    since = now - timedelta(minutes=7)
    TrxHolder.objects.create(server=server, thread_id=4711, trx_key="k", user="report", host="10.0.0.7",
                             started_at=since, seen_at=now)
    fire(server, [1000 + 600 * i for i in range(30)], now)
    text, html = inbox.text(0), inbox.html(0)
    said = f"Verdict:   Held by a read view: thread 4711, report@10.0.0.7, open since {since:%Y-%m-%d %H:%M:%S} UTC"
    assert said in text and "the history length grows 3,600.0 / min" in text
    assert '<th align="left">Verdict</th><td>Held by a read view: thread 4711, report@10.0.0.7' in html
    table = html.split("<table")[1].split("</table>")[0]
    assert "<p" not in table  # a paragraph between rows is no HTML: mail clients move it out of the table


def test_with_no_transaction_open_the_mail_says_purge_bound_with_the_rates(inbox):
    server, now = make_server("bound"), timezone.now().replace(microsecond=0)
    values = [1000 + 600 * i for i in range(30)]
    polls = [now - timedelta(seconds=10 * (29 - i)) for i in range(30)]
    # 900 undo records purged and 1,300 rows updated or deleted a 10 s poll: 90/s against 130/s.
    write_samples(Sample(server.pk, "innodb_metrics", t, 10.0, {
        "innodb_metrics:purge_del_mark_records": 600, "innodb_metrics:purge_upd_exist_or_extern_records": 300},
        frozenset({"innodb_metrics:purge_del_mark_records", "innodb_metrics:purge_upd_exist_or_extern_records"}))
        for t in polls[1:])
    write_samples(Sample(server.pk, "global_status", t, 10.0, {"Handler_update": 1000, "Handler_delete": 300},
                         frozenset({"Handler_update", "Handler_delete"})) for t in polls[1:])
    fire(server, values, now)
    text = inbox.text(0)
    assert "Verdict:   Purge-bound: no transaction holds it, yet the history length grows 3,600.0 / min" in text
    assert "purging 90 undo records/s while DML adds 130/s (rows updated + deleted)" in text
    assert "Oldest transaction: none open at the last poll." in text


def test_the_verdicts_times_said_in_utc_are_utc_whatever_time_zone_is_set(inbox, settings):
    settings.TIME_ZONE = "Asia/Kolkata"  # UTC+05:30: a time written in it is 5 h 30 min off the UTC one
    server, now = make_server("held-tz"), timezone.now().replace(microsecond=0)
    since = (now - timedelta(minutes=7)).astimezone(UTC)
    TrxHolder.objects.create(server=server, thread_id=4711, trx_key="k", user="report", host="10.0.0.7",
                             started_at=since, seen_at=now)
    fire(server, [1000 + 600 * i for i in range(30)], now)
    assert f"open since {since:%Y-%m-%d %H:%M:%S} UTC" in inbox.text(0)  # the holder's start, its UTC clock
