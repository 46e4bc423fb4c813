"""The store's catalog tables (ORM-managed) and gaps.

The samples themselves live in time-partitioned tables created by raw SQL
(migrations 0002+, see store/partitions.py): one compact row per
server per poll per source, never one row per metric.
"""

from django.contrib.postgres.fields import ArrayField
from django.db import models


class Source(models.Model):
    """A collector source name, stored once and referenced by a small id."""

    name = models.CharField(max_length=100, unique=True)

    def __str__(self) -> str:
        return self.name


class Metric(models.Model):
    """One metric name of one server; its id keys compacted and rollup rows."""

    server_id = models.IntegerField()
    name = models.CharField(max_length=400)
    counter = models.BooleanField(default=False)  # values are per-interval deltas

    class Meta:
        constraints = [models.UniqueConstraint(fields=["server_id", "name"], name="store_metric_uniq")]

    def __str__(self) -> str:
        return self.name


class Layout(models.Model):
    """Which metric each array slot of a raw row holds, per server and source.

    A server of another version (or a source that grows) gets a new layout;
    rows keep pointing at the layout they were written with.
    """

    server_id = models.IntegerField()
    source = models.ForeignKey(Source, on_delete=models.PROTECT)
    int_ids = ArrayField(models.IntegerField(), default=list)  # slots of store_raw.ivals
    float_ids = ArrayField(models.IntegerField(), default=list)  # slots of store_raw.fvals
    digest = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["server_id", "source"])]


class Gap(models.Model):
    """A recorded hole in a server's data, e.g. samples dropped from a full buffer."""

    server_id = models.IntegerField()
    start = models.DateTimeField()
    end = models.DateTimeField()
    reason = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["server_id", "start"])]

    def __str__(self) -> str:
        return f"{self.server_id}: {self.start} .. {self.end} ({self.reason})"


# Versions of pending days come from a sequence of their own: never reused, not even after a
# rollback or a day written and marked again (readers key what they keep by it).
PENDING_DAY_VERSIONS = "store_pendingday_version"


class PendingDay(models.Model):
    """A server's day whose 1-hour rollups are still to be written (from its 1-minute rollups).

    Every compaction of one of its hours gives it a new version: readers keep
    the hour buckets they derived for a version (store.pending_hours).
    """

    server_id = models.IntegerField()
    day = models.DateTimeField()
    version = models.BigIntegerField(db_default=models.Func(models.Value(PENDING_DAY_VERSIONS), function="nextval"))

    class Meta:
        constraints = [models.UniqueConstraint(fields=["server_id", "day"], name="store_pendingday_uniq")]
