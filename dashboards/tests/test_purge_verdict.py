"""The purge verdict: held by a read view, purge-bound, or draining with the time left."""

from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from alerts.readings import purge_reading
from collectors.models import PollRecord, ServerHealth, TrxHolder
from dashboards import reads
from dashboards.analysis.purge_growth import Trend, current_trend
from dashboards.analysis.purge_verdict import Holder, purge_verdict
from store.ingest import write_samples
from store.sample import Sample
from testing.servers import make_server

T0 = datetime(2026, 3, 2, 9, tzinfo=UTC)
HOLDER = Holder(42, "report", "10.0.0.7", T0)


def trend_of(values, step=10):
    return current_trend([T0 + timedelta(seconds=step * i) for i in range(len(values))], values)


def test_growing_with_a_transaction_open_is_held_by_it():
    verdict = purge_verdict(5000, trend_of([1000 + 100 * i for i in range(30)]), 1_000_000, HOLDER)
    assert verdict.kind == "held" and verdict.holder == HOLDER


def test_a_fall_too_recent_for_a_pace_says_where_it_fell_from():
    """An audit's read view released under 300 updates a second: the history rose 1,000 a poll to 30,100, then the
    next poll read 201. For that poll and the one after there is no pace (at least 3 polls since the turn) and the
    page said "No verdict": by hand it fell from 30,100 to 201 at the 30th poll, with nothing holding it."""
    values = [1000.0 * i + 100 for i in range(31)] + [201.0]
    trend = trend_of(values)
    assert trend.per_second is None and trend.before == 30_100 and trend.since == T0 + timedelta(seconds=310)
    assert purge_verdict(201, trend, 1_000_000, None).kind == "turned"
    assert purge_verdict(201, trend, 1_000_000, HOLDER).kind == "held"  # one still open: still its
    assert trend_of([201.0, 190.0]).before is None  # the first polls read: no turn to tell
    assert purge_verdict(190, trend_of([201.0, 190.0]), 1_000_000, None).kind == ""


def test_a_fall_too_recent_for_a_pace_reads_on_the_page(admin_client):
    from testing.dashboards import make_server as page_server

    server = page_server("fell")
    now = timezone.now().replace(microsecond=0)
    values = [1000 * i + 100 for i in range(31)] + [201]
    write_samples([Sample(server.pk, "history_length", now - timedelta(seconds=10 * (len(values) - 1 - i)), 10.0,
                          {reads.HISTORY: v}) for i, v in enumerate(values)])
    body = admin_client.get(f"/servers/{server.pk}/purge/").content.decode()
    verdict = body.split('id="purge-verdict"')[1].split("</section>")[0]
    assert "Fell</strong> from 30,100 to 201 at" in verdict and "1 poll since, too few for a pace" in verdict


def test_growing_with_none_open_is_purge_bound_with_the_rates():
    verdict = purge_verdict(5000, trend_of([1000 + 100 * i for i in range(30)]), 1_000_000, None, 800.0, 1200.0)
    assert verdict.kind == "purge-bound" and (verdict.purged_per_s, verdict.dml_per_s) == (800.0, 1200.0)


def test_growth_purge_matches_keeps_up_and_few_polls_are_early():
    """The audit's rates while the history stayed bounded: 1,782 purged a second against 1,809 added (1.5 %
    apart) is keeping up; 1,700 against 1,809 (6.0 % apart) is purge-bound; 4 polls of growth prove little."""
    growing = trend_of([1000 + 100 * i for i in range(30)])
    assert purge_verdict(5000, growing, 1_000_000, None, 1782.0, 1809.0).kind == "keeping-up"
    assert purge_verdict(5000, growing, 1_000_000, None, 1700.0, 1809.0).kind == "purge-bound"
    assert purge_verdict(5000, growing, 1_000_000, None, None, 1809.0).kind == "purge-bound"  # not read
    assert purge_verdict(5000, trend_of([4700, 4800, 4900, 5000]), 1_000_000, None).kind == "early"


def test_purging_more_than_the_margin_above_dml_is_ahead_never_a_match():
    """Audit 2: "purging 4,235 undo records/s matches the 2,284/s DML adds (within 5 %)", 85 % apart."""
    growing = trend_of([1000 + 100 * i for i in range(30)])
    assert purge_verdict(5000, growing, 1_000_000, None, 4235.0, 2284.0).kind == "ahead"
    assert purge_verdict(5000, growing, 1_000_000, None, 1.05 * 2284.0, 2284.0).kind == "keeping-up"
    assert purge_verdict(5000, growing, 1_000_000, None, 1.06 * 2284.0, 2284.0).kind == "ahead"


def test_within_4_noise_deviations_of_0_is_nearly_empty():
    """Draining 10 a second over a minute at a noise of 280: 4 x 280 = 1,120 is within reach of 0."""
    draining = Trend(per_second=-10.0, window=timedelta(minutes=1), polls=13, noise=280.0)
    assert draining.direction == "draining"  # 600 moved against 2 x 280
    assert purge_verdict(1_120, draining, 20_000, None).kind == "nearly-empty"
    assert purge_verdict(1_121, draining, 20_000, None).kind == "draining"


def test_draining_says_when_it_falls_below_the_threshold_and_empties():
    # 60,000 down 500 every 10 s (3,000/min): at 45,500 now; 20,000 below 40,000 in 5,500/50 = 110 s.
    values = [60_000 - 500 * i for i in range(30)]
    verdict = purge_verdict(values[-1], trend_of(values), 40_000, HOLDER)
    assert verdict.kind == "draining"
    assert verdict.to_threshold == timedelta(seconds=(45_500 - 40_000) / 50)
    assert verdict.to_empty == timedelta(seconds=45_500 / 50)
    assert purge_verdict(values[-1], trend_of(values), 50_000, None).to_threshold is None  # already below


def test_a_handful_of_undo_logs_is_nearly_empty_whatever_the_slope():
    """A load's growth (100 a poll) with the history at 1 now, as right after the load ended: no backlog."""
    growing = trend_of([1000 + 100 * i for i in range(30)])
    assert purge_verdict(1, growing, 20_000, None).kind == "nearly-empty"
    assert purge_verdict(100, growing, 20_000, None).kind == "nearly-empty"
    assert purge_verdict(101, growing, 20_000, None).kind == "purge-bound"
    assert purge_verdict(1, growing, 20_000, HOLDER).kind == "held"  # a read view open: its growth is the news
    draining = trend_of([60_000 - 500 * i for i in range(30)])
    assert purge_verdict(0, draining, 20_000, None).kind == "nearly-empty"  # never "empty in 0 s"


def test_flat_and_no_trend():
    assert purge_verdict(300, trend_of([300] * 20), 1000, None).kind == "flat"
    assert purge_verdict(300, trend_of([300, 301]), 1000, None).kind == ""


def test_a_held_read_view_keeps_its_verdict_through_a_turn():
    """Audit 2, R2 at 11:22:13: two polls since a turn, no trend, thread 35 still holding its snapshot; the page
    said "No verdict" between two "Held by a read view". The holder is known apart from the trend."""
    no_trend = trend_of([61_911, 66_417])
    assert no_trend.direction == "" and purge_verdict(66_417, no_trend, 20_000, HOLDER).kind == "held"
    assert purge_verdict(66_417, no_trend, 20_000, HOLDER).holder == HOLDER
    assert purge_verdict(300, trend_of([300] * 20), 1000, HOLDER).kind == "flat"  # not growing: no news


@pytest.mark.django_db
def test_the_purge_page_names_the_holder_and_the_rates(admin_client):
    server = make_server()
    now = timezone.now().replace(microsecond=0)
    polls = [now - timedelta(seconds=10 * (40 - i)) for i in range(41)]
    write_samples(Sample(server.pk, "history_length", t, None, {"history_list_length": 1000 + 300 * i})
                  for i, t in enumerate(polls))
    # Purge counters and DML: 300 records purged and 400 + 100 rows updated and deleted a 10 s poll.
    write_samples(Sample(server.pk, "innodb_metrics", t, 10.0, {
        "innodb_metrics:purge_del_mark_records": 100, "innodb_metrics:purge_upd_exist_or_extern_records": 200},
        frozenset({"innodb_metrics:purge_del_mark_records", "innodb_metrics:purge_upd_exist_or_extern_records"}))
        for t in polls[1:])
    write_samples(Sample(server.pk, "global_status", t, 10.0, {"Handler_update": 400, "Handler_delete": 100},
                         frozenset({"Handler_update", "Handler_delete"})) for t in polls[1:])
    body = admin_client.get(f"/servers/{server.pk}/purge/?range=15m").content.decode()
    verdict = body.split('id="purge-verdict"')[1].split("</section>")[0]
    assert "Purge-bound" in verdict and "purging 30 undo records/s while DML adds 50/s" in verdict
    assert "grows 1,800.0 / min" in verdict
    TrxHolder.objects.create(server=server, thread_id=4711, trx_key="k", user="report", host="10.0.0.7",
                             started_at=polls[0] - timedelta(minutes=5), seen_at=polls[-1])
    verdict = admin_client.get(f"/servers/{server.pk}/purge/?range=15m").content.decode()
    verdict = verdict.split('id="purge-verdict"')[1].split("</section>")[0]
    assert "Held by a read view" in verdict and "thread 4711, report@10.0.0.7" in verdict
    assert f"open since {polls[0] - timedelta(minutes=5):%Y-%m-%d %H:%M:%S} UTC" in verdict


@pytest.mark.django_db
def test_the_page_and_the_mail_say_nearly_empty_at_a_handful(admin_client):
    """10 up 1 a 10 s poll to 50: growing (40 in 400 s against a noise of 1), but 50 undo logs are no backlog."""
    server = make_server()
    now = timezone.now().replace(microsecond=0)
    polls = [now - timedelta(seconds=10 * (40 - i)) for i in range(41)]
    write_samples(Sample(server.pk, "history_length", t, None, {"history_list_length": 10 + i})
                  for i, t in enumerate(polls))
    body = admin_client.get(f"/servers/{server.pk}/purge/?range=15m&threshold=20000").content.decode()
    verdict = body.split('id="purge-verdict"')[1].split("</section>")[0]
    assert "Nearly empty</strong> at 50" in verdict and "Purge-bound" not in verdict
    assert "below it, nearly empty" in body and "reached in" not in body
    assert purge_reading(server.pk, now, 20_000) == (
        f"Nearly empty at 50: no backlog for purge, whatever the slope of the polls since {polls[0]:%H:%M:%S} UTC.")


@pytest.mark.django_db
def test_purge_counters_with_no_poll_in_the_segment_are_not_said_off(admin_client):
    """The counters, read once a minute, were last polled before the segment's first poll: on, not read yet.
    The same counters missing from the newest INNODB_METRICS poll are off, as the page's list says."""
    server = make_server()
    now = timezone.now().replace(microsecond=0)
    polls = [now - timedelta(seconds=10 * (40 - i)) for i in range(41)]
    write_samples(Sample(server.pk, "history_length", t, None, {"history_list_length": 1000 + 300 * i})
                  for i, t in enumerate(polls))
    counters = {"innodb_metrics:purge_del_mark_records": 100, "innodb_metrics:purge_upd_exist_or_extern_records": 200}
    before = [polls[0] - timedelta(seconds=90), polls[0] - timedelta(seconds=30)]
    write_samples(Sample(server.pk, "innodb_metrics", t, 60.0, counters, frozenset(counters)) for t in before)
    body = admin_client.get(f"/servers/{server.pk}/purge/?range=15m").content.decode()
    verdict = body.split('id="purge-verdict"')[1].split("</section>")[0]
    assert "Purge-bound" in verdict and "counters off" not in verdict
    assert f"no minute of their counters read wholly since {polls[0]:%H:%M:%S} UTC yet" in verdict
    assert "Purge counters that are off" in body  # purge_invoked and the others: never polled here
    write_samples([Sample(server.pk, "innodb_metrics", now, 60.0, {"innodb_metrics:trx_rw_commits": 5},
                          frozenset({"innodb_metrics:trx_rw_commits"}))])
    body = admin_client.get(f"/servers/{server.pk}/purge/?range=15m").content.decode()
    verdict = body.split('id="purge-verdict"')[1].split("</section>")[0]
    assert "(undo records purged: counters off, see below)" in verdict
    assert "<code>innodb_metrics:purge_del_mark_records</code>" in body.split("Purge counters that are off")[1]


@pytest.mark.django_db
def test_purge_counters_at_their_first_read_are_not_said_off(admin_client):
    """A server polled for 24 s: INNODB_METRICS read once, its baseline (gauges only: a counter needs two
    reads for a delta), the purge counters on. Seen live (MariaDB 10.11, purge throttled to one thread and
    batches of 1, sysbench oltp_update_non_index 8 threads, polls every 2 s): history 606 to 95,896 in 8 polls,
    DML 11,643/s, and the page said "(undo records purged: counters off, see below)" with the box to turn them
    on. Not read yet is not off."""
    server = make_server()
    now = timezone.now().replace(microsecond=0)
    polls = [now - timedelta(seconds=2 * (12 - i)) for i in range(13)]
    write_samples(Sample(server.pk, "history_length", t, None, {"history_list_length": 600 + 13_000 * i})
                  for i, t in enumerate(polls))
    dml = {"Handler_update": 23_000, "Handler_delete": 0}
    write_samples(Sample(server.pk, "global_status", t, 2.0, dml, frozenset(dml)) for t in polls[1:])
    write_samples([Sample(server.pk, "innodb_metrics", polls[0], None,
                          {"innodb_metrics:trx_rseg_history_len": 600, "innodb_metrics:buffer_pool_size": 67108864},
                          frozenset())])
    body = admin_client.get(f"/servers/{server.pk}/purge/?range=15m").content.decode()
    verdict = " ".join(body.split('id="purge-verdict"')[1].split("</section>")[0].split())
    assert "Purge-bound" in verdict and "counters off" not in verdict, verdict
    assert f"no minute of their counters read wholly since {polls[0]:%H:%M:%S} UTC yet" in verdict
    assert "while DML adds 11,500/s" in verdict
    assert "Purge counters that are off" not in body


@pytest.mark.django_db
def test_the_page_and_the_mail_name_the_holder_with_no_trend_yet(admin_client):
    """A climb of 300 a poll, then a cliff to 500 and one poll more (600): two polls since the turn, no trend,
    with thread 4711 holding a transaction: held by it, and the length said instead of a pace."""
    server = make_server()
    now = timezone.now().replace(microsecond=0)
    polls = [now - timedelta(seconds=10 * (40 - i)) for i in range(41)]
    values = [1000 + 300 * i for i in range(39)] + [500, 600]
    write_samples(Sample(server.pk, "history_length", t, None, {"history_list_length": v})
                  for t, v in zip(polls, values, strict=True))
    TrxHolder.objects.create(server=server, thread_id=4711, trx_key="k", user="report", host="10.0.0.7",
                             started_at=polls[-2], seen_at=polls[-1])
    body = admin_client.get(f"/servers/{server.pk}/purge/?range=15m&threshold=20000").content.decode()
    verdict = body.split('id="purge-verdict"')[1].split("</section>")[0]
    assert "Held by a read view" in verdict and "thread 4711, report@10.0.0.7" in verdict
    assert "the history length is 600 (too few polls since the turn for a trend)" in verdict
    assert purge_reading(server.pk, now, 20_000).startswith("Held by a read view: thread 4711, report@10.0.0.7")
    assert purge_reading(server.pk, now, 20_000).endswith(
        "the history length is 600 (too few polls since the turn for a trend).")


@pytest.mark.django_db
def test_purge_and_dml_rates_are_compared_over_the_same_seconds(admin_client):
    """Purge counters read once a minute, DML every 10 s poll at 50 rows/s. The first minute read purged 90/s (a
    drain), the second 50/s: over the seconds of the second, 50 against 50 keep up; over the whole segment the
    page said 70 "matches" 50."""
    server = make_server()
    now = timezone.now().replace(microsecond=0)
    polls = [now - timedelta(seconds=10 * (40 - i)) for i in range(41)]
    write_samples(Sample(server.pk, "history_length", t, None, {"history_list_length": 1000 + 300 * i})
                  for i, t in enumerate(polls))
    names = frozenset({"innodb_metrics:purge_del_mark_records", "innodb_metrics:purge_upd_exist_or_extern_records"})
    write_samples(Sample(server.pk, "innodb_metrics", t, 60.0, {
        "innodb_metrics:purge_del_mark_records": 0, "innodb_metrics:purge_upd_exist_or_extern_records": per_s * 60},
        names) for t, per_s in ((polls[6], 90), (polls[12], 50)))
    write_samples(Sample(server.pk, "global_status", t, 10.0, {"Handler_update": 400, "Handler_delete": 100},
                         frozenset({"Handler_update", "Handler_delete"})) for t in polls[1:])
    body = admin_client.get(f"/servers/{server.pk}/purge/?range=15m").content.decode()
    verdict = body.split('id="purge-verdict"')[1].split("</section>")[0]
    assert "Purge keeps up" in verdict and "purging 50 undo records/s matches the 50/s DML adds" in verdict
    assert f"from {polls[6]:%H:%M:%S} to {polls[12]:%H:%M:%S} UTC" in verdict
    assert purge_reading(server.pk, now, 1_000_000).endswith(
        f"from {polls[6]:%H:%M:%S} to {polls[12]:%H:%M:%S} UTC: not purge-bound.")


def test_growth_with_the_holders_unreadable_is_no_purge_bound(admin_client):
    """Seen live: a monitoring user without PROCESS, a read view held 60 s under 200 updates/s. INNODB_TRX could not
    be read, so no holder was found, and the page said "Purge-bound: no transaction holds it". The history grows
    300 a 10 s poll (1,800 / min by hand); whether a read view holds it cannot be told: the page says so, and why."""
    server = make_server()
    now = timezone.now().replace(microsecond=0)
    polls = [now - timedelta(seconds=10 * (40 - i)) for i in range(41)]
    write_samples(Sample(server.pk, "history_length", t, None, {"history_list_length": 1000 + 300 * i})
                  for i, t in enumerate(polls))
    why = "lab: oldest_trx: INNODB_TRX needs the PROCESS privilege: GRANT PROCESS ON *.* TO the monitoring user"
    ServerHealth.objects.create(server=server, sources={"oldest_trx": {"ok": False, "status": "off", "error": why}})
    body = admin_client.get(f"/servers/{server.pk}/purge/?range=15m").content.decode()
    verdict = body.split('id="purge-verdict"')[1].split("</section>")[0]
    assert "Purge-bound" not in verdict and "no transaction holds it" not in verdict
    assert "Growing</strong> 1,800.0 / min" in verdict and "cannot tell" in verdict and "GRANT PROCESS" in verdict
    mail = purge_reading(server.pk, now, 20_000)  # the e-mail's, reading the health row by the server's id
    assert mail.startswith("Growing 1,800.0 / min") and mail.endswith(f"SteadyState cannot tell: {why}.")


def test_the_holders_table_says_they_cannot_be_read_not_that_none_was_open(admin_client):
    """A monitoring user without PROCESS: "No open transaction was seen" read as if none was open, where none
    could be read (seen live on the machine's MariaDB with PROCESS revoked and a read view held)."""
    server = make_server()
    now = timezone.now().replace(microsecond=0)
    write_samples(Sample(server.pk, "history_length", now - timedelta(seconds=10 * i), None,
                         {"history_list_length": 5000 - 300 * i}) for i in range(10))
    why = "lab: oldest_trx: INNODB_TRX needs the PROCESS privilege: GRANT PROCESS ON *.* TO the monitoring user"
    ServerHealth.objects.create(server=server, sources={"oldest_trx": {"ok": False, "status": "off", "error": why}})
    body = admin_client.get(f"/servers/{server.pk}/purge/?range=15m").content.decode()
    table = body.split('id="holders"')[1].split("</section>")[0]
    assert "none can be now: lab: oldest_trx: INNODB_TRX needs the PROCESS privilege" in table


@pytest.mark.django_db
def test_a_holder_found_gone_by_the_polls_own_holder_read_is_no_longer_held(admin_client):
    """thread 218 committed between two polls; the last poll read the history at 04:53:26.670 and its
    oldest_trx read, 39 ms later, found the holder gone. The page and the mail said "Held by a read view" (the
    history read came before the holder's end). A holder found gone only by the next poll was held at this one."""
    server = make_server()
    last = timezone.now().replace(microsecond=670_000) - timedelta(seconds=1)
    polls = [last - timedelta(seconds=10 * (40 - i)) for i in range(41)]
    write_samples(Sample(server.pk, "history_length", t, None, {"history_list_length": 10 + i})
                  for i, t in enumerate(polls))
    holder = TrxHolder.objects.create(server=server, thread_id=218, trx_key="k", user="report", host="10.0.0.7",
                                      started_at=polls[0] - timedelta(minutes=1),
                                      seen_at=polls[-2] + timedelta(milliseconds=39),
                                      ended_at=last + timedelta(milliseconds=39))
    page = f"/servers/{server.pk}/purge/?range=15m&threshold=20000"
    verdict = admin_client.get(page).content.decode().split('id="purge-verdict"')[1].split("</section>")[0]
    assert "Held by a read view" not in verdict and "Nearly empty</strong> at 50" in verdict
    assert purge_reading(server.pk, last, 20_000).startswith("Nearly empty at 50")
    # Seen by the last poll's holder read, found gone by the next poll's: held at the last poll.
    holder.seen_at, holder.ended_at = last + timedelta(milliseconds=39), last + timedelta(seconds=10, milliseconds=39)
    holder.save()
    verdict = admin_client.get(page).content.decode().split('id="purge-verdict"')[1].split("</section>")[0]
    assert "Held by a read view" in verdict and "thread 218, report@10.0.0.7" in verdict
    assert purge_reading(server.pk, last, 20_000).startswith("Held by a read view: thread 218, report@10.0.0.7")


@pytest.mark.django_db
def test_a_holder_is_kept_through_a_poll_whose_holder_read_failed():
    """Thread 218 seen by the poll at 10:00:00; the poll at 10:00:10 read the history but its oldest_trx read
    timed out; the poll at 10:00:20 found it gone. Held at 10:00:10 (nothing saw it go), gone at 10:00:20."""
    server = make_server()
    polls = [T0 + timedelta(seconds=10 * i) for i in range(3)]
    write_samples(Sample(server.pk, "history_length", t, None, {"history_list_length": 5000}) for t in polls)
    timed_out = "oldest_trx: (2013, 'Lost connection to server during query (timed out)')"
    for slot, (t, ok) in enumerate(zip(polls, (True, False, True), strict=True)):
        PollRecord.objects.create(server=server, slot=slot, started_at=t - timedelta(milliseconds=5),
                                  duration_ms=40.0, ok=ok, error="" if ok else timed_out, sources={
                                      "history_length": {"ok": True, "error": ""},
                                      "oldest_trx": {"ok": ok, "error": "" if ok else timed_out}})
    TrxHolder.objects.create(server=server, thread_id=218, trx_key="k", user="report", host="10.0.0.7",
                             started_at=T0 - timedelta(minutes=1), seen_at=polls[0] + timedelta(milliseconds=39),
                             ended_at=polls[2] + timedelta(milliseconds=39))
    assert reads.holder_at(server.pk, polls[0]) == Holder(218, "report", "10.0.0.7", T0 - timedelta(minutes=1))
    assert reads.holder_at(server.pk, polls[1]) == Holder(218, "report", "10.0.0.7", T0 - timedelta(minutes=1))
    assert reads.holder_at(server.pk, polls[2]) is None  # that poll's own read found it gone



@pytest.mark.django_db
@pytest.mark.parametrize(("seen", "ended", "held", "records"), [
    (20.039, None, True, 0),  # still open
    (10.039, 20.039, True, 0),  # seen by the poll at :10's own read, found gone by the next poll
    (0.039, 5.0, False, 0),  # gone 5 s before :10
    (0.039, 10.039, False, 1),  # last seen at :00, found gone just after :10: that poll's record decides
])
def test_the_poll_record_is_read_only_for_a_holder_last_seen_before_t_and_found_gone_after(seen, ended, held,
                                                                                          records):
    """holder_at the poll at 10:00:10. Where the holder is open, seen at or after t, or gone before t, whether that
    poll read the holders changes nothing, and its record is not read. Seen before t and found gone after it, held
    if the poll's holder read failed, gone if it ran (no record left: it counts as run)."""
    server = make_server()
    t = T0 + timedelta(seconds=10)
    TrxHolder.objects.create(server=server, thread_id=9, trx_key="k", user="app", host="10.0.0.5",
                             started_at=T0 - timedelta(minutes=1), seen_at=T0 + timedelta(seconds=seen),
                             ended_at=None if ended is None else T0 + timedelta(seconds=ended))
    with CaptureQueriesContext(connection) as queries:
        holder = reads.holder_at(server.pk, t)
    assert holder == (Holder(9, "app", "10.0.0.5", T0 - timedelta(minutes=1)) if held else None)
    assert sum('FROM "collectors_pollrecord"' in q["sql"] for q in queries.captured_queries) == records


def test_a_steep_rise_over_a_loads_first_polls_is_no_flat_line():
    """A load's first polls: the history read 0, 0, 27,305, 48,499. Four polls that bend leave the slope's t test
    2 degrees of freedom, and the page said "Flat at 48,499 ...: purge keeps up". By hand it rose 48,499 in the
    last two polls (20 s), over 4 polls, fewer than the 8 a pace needs: growing, too few polls to judge."""
    trend = trend_of([0, 0, 27_305, 48_499])
    assert trend.polls == 4
    verdict = purge_verdict(48_499, trend, 1_000_000, None)
    assert verdict.kind == "early"
    assert purge_verdict(48_499, trend, 1_000_000, HOLDER).kind == "held"
    assert purge_verdict(300, trend_of([300, 290, 310, 300]), 1000, None).kind == "flat"  # a level stays flat


def test_a_holder_is_named_only_where_the_history_grew_while_it_was_open():
    """A drain of 4,000 a 10 s poll from 90,000 to 10,000, then 2,000 (a turn too recent for a pace), with a
    transaction open since the drain's 12th poll (42,000): the lowest poll since it opened is the last, 2,000, so
    the history only fell while it was open and the fall carries the drain on. Where it stands 5 above the lowest
    (more than 4 noise deviations of 1: a straight drain's), it grew while open: held, as before."""
    drain = trend_of([90_000 - 4_000 * i for i in range(21)] + [2_000])
    assert drain.noise == 1.0
    assert purge_verdict(2_000, drain, 20_000, HOLDER, lowest=2_000).kind == "drained-on"
    assert purge_verdict(2_000, drain, 20_000, HOLDER, lowest=1_995).kind == "held"
    assert purge_verdict(2_000, drain, 20_000, HOLDER, lowest=1_996).kind == "drained-on"
    assert purge_verdict(2_000, drain, 20_000, HOLDER).kind == "held"  # not read: named, as before
    flat = trend_of([20_000 + (60 if i % 2 else -60) for i in range(20)])
    assert purge_verdict(19_940, flat, 5_000, HOLDER, lowest=19_940) == purge_verdict(19_940, flat, 5_000, None)
