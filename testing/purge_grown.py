"""A history grown under a read view, nothing purged: the polls the purge release tests start from."""

from datetime import timedelta

from django.utils import timezone

from store.ingest import write_samples
from store.sample import Sample

PURGED = ("innodb_metrics:purge_del_mark_records", "innodb_metrics:purge_upd_exist_or_extern_records")


def grown_polls(server):
    """41 polls 10 s apart, the history 1,000 + 300 a poll (1,800 / min), nothing purged, 50 rows changed a second."""
    last = timezone.now().replace(microsecond=857_000) - timedelta(seconds=1)
    polls = [last - timedelta(seconds=10 * (40 - i)) for i in range(41)]
    write_samples(Sample(server.pk, "history_length", t, None, {"history_list_length": 1000 + 300 * i})
                  for i, t in enumerate(polls))
    write_samples(Sample(server.pk, "innodb_metrics", t, 10.0, dict.fromkeys(PURGED, 0), frozenset(PURGED))
                  for t in polls[1:])
    write_samples(Sample(server.pk, "global_status", t, 10.0, {"Handler_update": 400, "Handler_delete": 100},
                         frozenset({"Handler_update", "Handler_delete"})) for t in polls[1:])
    return polls
