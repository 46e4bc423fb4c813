"""The pressure page's figures as computed by hand from written samples: the DML rate per poll at every
range, the redo capacity and purge lag in force during the viewed range, MiB labels, the pinned axis."""

from datetime import UTC, datetime, timedelta

import pytest

from dashboards.analysis import pressure as spec
from store.ingest import write_samples
from store.sample import Sample
from testing.dashboards import figures, make_server

pytestmark = pytest.mark.django_db
STEP = 10
DML = ("Innodb_rows_inserted", "Innodb_rows_updated", "Innodb_rows_deleted")
DML_NAME = "DML rows /s (Innodb_rows_inserted + Innodb_rows_updated + Innodb_rows_deleted)"
MIB = 2**20


def dml_polls(server_id: int, start: datetime, polls: range) -> list[Sample]:
    """Per 10 s poll: 50 inserted, 0 or 2,000 updated (odd polls 2,000), 10 deleted."""
    return [Sample(server_id, "global_status", start + timedelta(seconds=STEP * i), float(STEP),
                   {"Innodb_rows_inserted": 50, "Innodb_rows_updated": 2000 * (i % 2), "Innodb_rows_deleted": 10},
                   frozenset(DML)) for i in polls]


def rate(i: int) -> float:
    """Poll i by hand: (50 + 10) / 10 s = 6 rows/s, odd polls (50 + 2,000 + 10) / 10 s = 206 rows/s."""
    return 206.0 if i % 2 else 6.0


def trace(fig: dict, name: str) -> dict:
    return next(t for t in fig["data"] if t["name"] == name)


def recent_start(polls: int) -> datetime:
    """A start such that `polls` polls end a few minutes ago: inside any live range, at full resolution."""
    end = datetime.now(UTC).replace(second=0, microsecond=0) - timedelta(minutes=5)
    return end - timedelta(seconds=STEP * polls)


@pytest.mark.parametrize("preset", ["24h", "7d"])
def test_the_dml_line_at_a_long_range_is_each_polls_sum(admin_client, preset):
    """720 polls (2 h) fit in the chart's 1,200 points: every poll is drawn, 6 or 206 rows/s, never 6 flat."""
    server = make_server()
    start = recent_start(720)
    write_samples(dml_polls(server.pk, start, range(1, 721)))
    fig = figures(admin_client.get(f"/servers/{server.pk}/pressure/?range={preset}"))["pressure-chart"]
    assert trace(fig, DML_NAME)["y"] == [rate(i) for i in range(1, 721)]


def test_a_downsampled_dml_line_keeps_the_lowest_and_highest_poll(admin_client):
    """At 100 points for 720 polls each bin holds both kinds of poll: only 6 and 206 are drawn, both."""
    server = make_server()
    write_samples(dml_polls(server.pk, recent_start(720), range(1, 721)))
    fig = figures(admin_client.get(f"/servers/{server.pk}/pressure/?range=7d&w=100"))["pressure-chart"]
    y = trace(fig, DML_NAME)["y"]
    assert len(y) <= 100
    assert set(y) == {6.0, 206.0}


def test_an_outage_breaks_the_dml_line(admin_client):
    """Polls 1-99, none for 100 s, then 110-200: one break between poll 99 and poll 110."""
    server = make_server()
    write_samples(dml_polls(server.pk, recent_start(200), [*range(1, 100), *range(110, 201)]))
    fig = figures(admin_client.get(f"/servers/{server.pk}/pressure/?range=24h"))["pressure-chart"]
    assert trace(fig, DML_NAME)["y"] == [rate(i) for i in range(1, 100)] + [None] + [rate(i) for i in range(110, 201)]


def write_redo_history(server_id: int, now: datetime) -> datetime:
    """innodb_redo_log_capacity 100 MiB three days ago, 1 GiB from an hour ago; checkpoint age 80 MiB
    for 5 minutes three days ago. Returns when the 100 MiB was read."""
    then = now - timedelta(days=3)
    write_samples([
        Sample(server_id, "variables", then, None, {"var:innodb_redo_log_capacity": 100 * MIB,
                                                    "var:innodb_max_purge_lag": 0}),
        Sample(server_id, "variables", now - timedelta(hours=1), None, {"var:innodb_redo_log_capacity": 1024 * MIB}),
        *[Sample(server_id, "global_status", then + timedelta(minutes=10, seconds=STEP * i), None,
                 {"Innodb_checkpoint_age": 80 * MIB}) for i in range(30)],
    ])
    return then


def params(start: datetime, end: datetime) -> dict:
    return {"from": start.strftime("%Y-%m-%dT%H:%M:%SZ"), "to": end.strftime("%Y-%m-%dT%H:%M:%SZ")}


def test_a_past_range_is_drawn_against_the_capacity_then(admin_client):
    """80 MiB of 100 MiB three days ago, though the capacity is 1 GiB now."""
    server = make_server()
    now = datetime.now(UTC).replace(microsecond=0)
    then = write_redo_history(server.pk, now)
    response = admin_client.get(f"/servers/{server.pk}/pressure/", params(then + timedelta(minutes=5),
                                                                         then + timedelta(minutes=65)))
    fig = figures(response)["pressure-chart"]
    assert trace(fig, "checkpoint age (MiB)")["y"] == [80.0] * 30
    assert trace(fig, "capacity: innodb_redo_log_capacity")["y"] == [100.0, 100.0]
    body = response.content.decode()
    assert "104,857,600 bytes (innodb_redo_log_capacity" in body
    assert "changed within this range" not in body


def test_a_range_over_a_capacity_change_says_so(admin_client):
    server = make_server()
    now = datetime.now(UTC).replace(microsecond=0)
    then = write_redo_history(server.pk, now)
    response = admin_client.get(f"/servers/{server.pk}/pressure/", params(then + timedelta(minutes=5), now))
    body = response.content.decode()
    assert "1,073,741,824 bytes (innodb_redo_log_capacity" in body  # 1024 * 2**20, in force at the end
    assert "changed within this range</span>, 104,857,600 bytes at its start" in body


@pytest.mark.parametrize(("lag", "shown"), [(None, "innodb_max_purge_lag: not read yet for this range."),
                                           (0, "innodb_max_purge_lag: 0 (no DML delay configured)."),
                                           (50_000, "innodb_max_purge_lag: 50,000.")])
def test_the_purge_lag_is_shown_as_read_and_unknown_as_unknown(admin_client, lag, shown):
    server = make_server()
    start = recent_start(30)
    samples = dml_polls(server.pk, start, range(1, 31))
    if lag is not None:
        samples.append(Sample(server.pk, "variables", start, None, {"var:innodb_max_purge_lag": lag}))
    write_samples(samples)
    body = admin_client.get(f"/servers/{server.pk}/pressure/?range=1h").content.decode()
    assert " ".join(shown.split()) in " ".join(body.split())


def test_the_axis_shows_the_range_asked_for_not_the_data(admin_client):
    """Ten minutes of polls in a 24 h view: the axis spans the 24 h."""
    server = make_server()
    start = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    write_samples(dml_polls(server.pk, start, range(1, 61)))
    fig = figures(admin_client.get(f"/servers/{server.pk}/pressure/",
                                   {"from": "2026-03-02T00:00:00Z", "to": "2026-03-03T00:00:00Z"}))["pressure-chart"]
    assert fig["layout"]["xaxis"]["range"] == ["2026-03-02T00:00:00", "2026-03-03T00:00:00"]
    assert fig["layout"]["xaxis"]["autorange"] is False
    assert fig["layout"]["annotations"][0]["text"] == "<b>Redo: checkpoint age against capacity (MiB)</b>"


def test_the_replication_axis_shows_the_range_asked_for(admin_client):
    server = make_server()
    write_samples([Sample(server.pk, "replication", datetime(2026, 3, 2, 9, 0, 10 * i, tzinfo=UTC), 10.0,
                          {"replica.lag_s": 2, "replica.io_running": 1, "replica.sql_running": 1})
                   for i in range(1, 6)])
    fig = figures(admin_client.get(f"/servers/{server.pk}/replication/",
                                   {"from": "2026-03-02T00:00:00Z", "to": "2026-03-03T00:00:00Z"}))["replication-chart"]
    assert fig["layout"]["xaxis"]["range"] == ["2026-03-02T00:00:00", "2026-03-03T00:00:00"]


def test_a_poll_one_counter_lacks_is_a_hole_in_the_sum():
    a = spec.Summed([1, 2, 3], [1.0, 2.0, 3.0])
    b = spec.Summed([1, 3], [10.0, 30.0])
    assert spec.summed([a, b]) == spec.Summed([1, 2, 3], [11.0, None, 33.0])


def test_downsampling_the_sum_keeps_extremes_and_the_edges_of_a_hole():
    """Polls at 0-3 s and 6-9 s, none at 4-5 s. 6 points: one bin's lowest (1 at 0 s) and highest (9 at 1 s),
    the last poll before the hole (8 at 3 s) and the first after (3 at 6 s), a break half-way (4.5 s)."""
    t0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    ts = [t0 + timedelta(seconds=s) for s in range(10)]
    out = spec.downsampled(spec.Summed(ts, [1.0, 9.0, 2.0, 8.0, None, None, 3.0, 7.0, 4.0, 6.0]), 6)
    assert out.ts == [t0 + timedelta(seconds=s) for s in (0, 1, 3, 4.5, 6)]
    assert out.values == [1.0, 9.0, 8.0, None, 3.0]
    assert spec.downsampled(spec.Summed([], []), 6) == spec.Summed([], [])


def test_a_setting_in_force_is_the_last_reading_and_a_change_is_seen():
    assert spec.in_force(100.0, [], 100.0) == spec.InForce(100.0, 100.0, False)
    assert spec.in_force(100.0, [100.0, 1024.0], 1024.0) == spec.InForce(1024.0, 100.0, True)
    assert spec.in_force(100.0, [1024.0, 100.0], 100.0) == spec.InForce(100.0, 100.0, True)  # and back
    assert spec.in_force(None, [], None) == spec.InForce(None, None, False)


def test_a_range_older_than_the_polls_kept_says_the_dml_line_is_not_drawn(admin_client):
    """60 days ago: older than the raw retention (14 days) and any raw partition; only rollups could answer."""
    server = make_server()
    write_samples(dml_polls(server.pk, recent_start(30), range(1, 31)))
    day = datetime.now(UTC).replace(microsecond=0) - timedelta(days=60)
    response = admin_client.get(f"/servers/{server.pk}/pressure/", params(day, day + timedelta(days=1)))
    assert all(t["name"] != DML_NAME for t in figures(response)["pressure-chart"]["data"])
    assert "DML rows /s is not drawn: it is summed poll by poll, and the polls are kept 14 days" in \
        response.content.decode()


def test_a_range_reaching_past_the_polls_kept_draws_the_dml_line_where_they_are(admin_client):
    """20 days back: the raw retention (14 days) holds the last 2 h of polls, drawn per poll, and the page says
    from when the line can be drawn."""
    server = make_server()
    write_samples(dml_polls(server.pk, recent_start(720), range(1, 721)))
    now = datetime.now(UTC).replace(microsecond=0)
    response = admin_client.get(f"/servers/{server.pk}/pressure/", params(now - timedelta(days=20), now))
    assert trace(figures(response)["pressure-chart"], DML_NAME)["y"] == [rate(i) for i in range(1, 721)]
    assert "DML rows /s is drawn from " in response.content.decode()
