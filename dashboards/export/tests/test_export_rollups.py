"""/export.csv of a range whose polls are gone (past the raw retention): a counter's row is the exact sum of
its 1-minute rollups' deltas (over the seconds their polls cover, as a rate), never a mean of chart points."""

from datetime import UTC, datetime, timedelta

import pytest

from dashboards.export.csv_safe import iso_utc
from store import compaction, read_full, retention
from store.catalog import server_metrics
from store.ingest import write_samples
from store.sample import Sample
from testing import dashboards as data

pytestmark = pytest.mark.django_db
NOW = datetime.now(UTC).replace(minute=0, second=0, microsecond=0)
T0 = NOW - timedelta(days=20)  # older than the 14 days of polls kept, within the 90 days of minutes
# (seconds after T0, interval s, delta): minute 0 at 100 and 300/s over 7 and 13 s intervals, minute 1 steady.
POLLS = [(7, 7, 700), (20, 13, 3900), (27, 7, 700), (40, 13, 3900), (47, 7, 700), (60, 13, 3900),
         (70, 10, 2000), (80, 10, 2000), (90, 10, 2000), (100, 10, 2000), (110, 10, 2000)]


@pytest.fixture
def old(admin_user, client):
    client.force_login(admin_user)
    server = data.make_server("db1", poll_interval=10)
    write_samples([Sample(server.pk, "global_status", T0 + timedelta(seconds=at), float(seconds), {"tps": delta},
                          frozenset({"tps"})) for at, seconds, delta in POLLS])
    compaction.compact_closed(NOW)
    retention.apply(NOW)
    infos = [m for m in server_metrics([server.pk]) if m.name == "tps"]
    assert not read_full.read(server.pk, infos, T0, T0 + timedelta(minutes=5))  # the polls are gone
    return server


def rows(client, mode: str) -> dict[str, str]:
    got = data.get_csv(client, "/export.csv", server="db1", metrics="tps", mode=mode, step="60",
                       **{"from": iso_utc(T0), "to": iso_utc(T0 + timedelta(minutes=3))})
    return {r[0]: r[1] for r in got[1:]}


def test_a_row_past_the_raw_retention_is_its_minutes_exact_sum(client, old):
    minute0 = 700 + 3900 + 700 + 3900 + 700  # polls at 7 to 47 s: 9,900 over 47 s
    minute1 = 3900 + 2000 * 5  # polls at 60 to 110 s: 13,900 over 63 s
    got = rows(client, "rate")
    assert float(got[iso_utc(T0)]) == pytest.approx(minute0 / 47, rel=1e-5)  # 210.638; the points' mean was 200
    assert float(got[iso_utc(T0 + timedelta(minutes=1))]) == pytest.approx(minute1 / 63, rel=1e-5)
    got = rows(client, "delta")
    assert (got[iso_utc(T0)], got[iso_utc(T0 + timedelta(minutes=1))]) == (str(minute0), str(minute1))
