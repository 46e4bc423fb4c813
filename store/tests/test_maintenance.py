"""The maintenance pass, as the Celery beat task and as manage.py commands."""

from datetime import UTC, datetime, timedelta
from io import StringIO

import pytest
from django.core.management import call_command

from store import partitions, query, tasks
from store.ingest import write_samples
from testing.store import polls

pytestmark = pytest.mark.django_db


def test_it_creates_partitions_ahead_compacts_and_keeps_values():
    now = datetime.now(UTC)
    t0 = now.replace(minute=0, second=0, microsecond=0) - timedelta(hours=3)
    samples = polls(5, 3 * 360, t0=t0)
    write_samples(samples)
    report = tasks.maintain()
    assert len(report["compacted"]) >= 2  # the closed hours
    ahead = partitions.RAW.name(partitions.RAW.floor(now + timedelta(hours=5)))
    assert ahead in partitions.existing(partitions.RAW)
    (s,) = query.series([5], ["Com_select"], t0, now, max_points=10**6, mode="delta")
    assert s.values == [p.values["Com_select"] for p in samples[1:]]


def test_it_runs_as_commands():
    out = StringIO()
    for command in ("store_maintain", "store_compact", "store_retention", "store_flush"):
        call_command(command, stdout=out)
    text = out.getvalue()
    assert "compacted" in text and "dropped" in text and "buffered sample" in text
    assert "full resolution 14 d" in text
