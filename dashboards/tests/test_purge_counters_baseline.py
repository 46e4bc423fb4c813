"""The purge counters' off list after a baseline: told by the newest innodb_metrics sample's interval, not by
whether it holds a counter (every enabled counter may be a level)."""

from datetime import timedelta

import pytest
from django.utils import timezone

from dashboards import reads
from store.ingest import write_samples
from store.sample import Sample
from testing.servers import make_server

pytestmark = pytest.mark.django_db
T0 = timezone.now().replace(microsecond=0) - timedelta(minutes=10)
WANTED = reads.PURGE_COUNTERS + [reads.PURGE_DELAY]
HISTORY_LEN = "innodb_metrics:trx_rseg_history_len"  # TYPE 'value': a gauge


def metrics_sample(server_id: int, minute: int, interval: float | None, purge: bool) -> Sample:
    """innodb_metrics' read at T0 + minute: the history length, and with `purge` the purge delay (a level) and the
    purge counters (deltas, none on a baseline: a read of no interval)."""
    values = {HISTORY_LEN: 40, **({reads.PURGE_DELAY: 0} if purge else {})}
    counters = reads.PURGE_COUNTERS if purge and interval is not None else []
    return Sample(server_id, "innodb_metrics", T0 + timedelta(minutes=minute), interval,
                  {**values, **dict.fromkeys(counters, 3)}, frozenset(counters))


def test_only_a_level_enabled_lists_every_purge_counter_off():
    """Purge counters read at minutes 0 and 1; then innodb_monitor_disable = '%' and innodb_monitor_enable =
    trx_rseg_history_len: minutes 2 and 3 read that gauge alone, each a minute after the last (no baseline).
    Every purge counter is off."""
    server = make_server()
    write_samples([metrics_sample(server.pk, 0, None, True), metrics_sample(server.pk, 1, 60.0, True),
                   metrics_sample(server.pk, 2, 60.0, False), metrics_sample(server.pk, 3, 60.0, False)])
    collected, off = reads.purge_counters(server.pk)
    assert collected == WANTED and off == WANTED


def test_a_baseline_after_a_reset_lists_none_off():
    """The same counters read at minutes 0 and 1, then a restart: minute 2's read is a baseline (no interval),
    whose counters have no delta yet. None is off."""
    server = make_server()
    write_samples([metrics_sample(server.pk, 0, None, True), metrics_sample(server.pk, 1, 60.0, True),
                   metrics_sample(server.pk, 2, None, True)])
    assert reads.purge_counters(server.pk) == (WANTED, [])
