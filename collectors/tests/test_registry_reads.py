"""The registry read as polling needs it: the beat tick reads the ids and intervals (the whole rows when they
changed) and, once every server is scheduled, claims only the due ones; a batch reads its servers' fields."""

import json
from typing import cast

import pytest

from collectors import fleet_cache, schedule, state
from collectors.schedule import DUE_KEY, claim_due
from servers.models import Server

START = 5_000_000.0


def scores() -> dict[int, float]:
    rows = cast(list[tuple[bytes, float]], state.client().zrange(DUE_KEY, 0, -1, withscores=True))  # any reply
    return {int(member): score for member, score in rows}


def test_it_claims_the_due_servers_of_a_scheduled_fleet_at_their_due_times(db):
    state.client().delete(DUE_KEY)
    fleet = [(1, 10), (2, 10), (3, 10), (4, 10), (5, 20)]
    assert claim_due(fleet, START) == []  # registers them all
    # Next-due times chosen by hand: 1 and 3 due within the tick, 5 missed three of its slots, 2 and 4 later.
    state.client().zadd(DUE_KEY, {"1": START + 5, "2": START + 12, "3": START + 3.5, "4": START + 30,
                                  "5": START - 55})
    assert claim_due(fleet, START + 5) == [(1, START + 5), (3, START + 3.5), (5, START + 5)]
    # Each claimed one moved an interval past the slot it was claimed for; the others untouched.
    assert scores() == {1: START + 15, 2: START + 12, 3: START + 13.5, 4: START + 30, 5: START + 25}
    assert claim_due(fleet, START + 5) == []  # a second dispatcher gets nothing


def test_a_server_added_as_another_is_removed_is_scheduled(db):
    state.client().delete(DUE_KEY)
    claim_due([(1, 10), (2, 10), (3, 10)], START)
    claim_due([(1, 10), (2, 10), (4, 10)], START + 1)  # same count: 3 gone, 4 new
    assert 4 in scores()
    claim_due([(1, 10), (2, 10), (4, 10)], START + 2)
    assert sorted(scores()) == [1, 2, 4]


def test_the_registry_copy_follows_every_change_of_a_server(db):
    first = Server(name="copy-a", host="10.0.0.1", port=3306, user="steady", poll_interval=10)
    second = Server(name="copy-b", host="10.0.0.2", port=3307, user="steady", poll_interval=30)
    for server in (first, second):
        server.password = "pw"
        server.save()
    fleet_cache._kept = ""  # a fresh process
    assert fleet_cache.enabled_intervals() == [(first.id, 10), (second.id, 30)]
    assert copied_hosts() == {"copy-a": "10.0.0.1", "copy-b": "10.0.0.2"}
    first.host = "10.0.0.9"
    first.save()
    assert fleet_cache.enabled_intervals() == [(first.id, 10), (second.id, 30)]
    assert copied_hosts() == {"copy-a": "10.0.0.9", "copy-b": "10.0.0.2"}
    second.enabled = False
    second.save()
    assert fleet_cache.enabled_intervals() == [(first.id, 10)]
    assert copied_hosts() == {"copy-a": "10.0.0.9"}


def copied_hosts() -> dict[str, str]:
    raw = state.client().get(fleet_cache.KEY)
    assert isinstance(raw, bytes)
    return {row["name"]: row["host"] for row in json.loads(raw)}


def test_schedule_reset_leaves_the_next_claim_to_register_every_server(db):
    claim_due([(1, 10), (2, 10)], START)
    schedule.reset()
    claim_due([(1, 10), (2, 10)], START + 1)
    assert sorted(scores()) == [1, 2]


def test_a_batch_reads_its_enabled_servers_fields(db):
    kept = Server(name="batch-a", host="10.1.0.1", port=3310, user="mon", poll_interval=15, tls_mode="verify-ca",
                  tls_ca="/etc/ca.pem", node_exporter_url="http://10.1.0.1:9100/metrics", statements_interval=120)
    kept.password = "pw-a"
    gone = Server(name="batch-b", host="10.1.0.2", user="mon", enabled=False)
    gone.password = "pw-b"
    for server in (kept, gone):
        server.save()
    Server.objects.filter(pk=kept.pk).update(flavor="mariadb", version="10.11.6-MariaDB")
    [server] = fleet_cache.servers_by_id([kept.id, gone.id])
    assert (server.id, server.name, server.host, server.port, server.user, server.password) == (
        kept.id, "batch-a", "10.1.0.1", 3310, "mon", "pw-a")
    assert (server.tls_mode, server.tls_ca, server.node_exporter_url, server.poll_interval,
            server.statements_interval) == ("verify-ca", "/etc/ca.pem", "http://10.1.0.1:9100/metrics", 15, 120)
    assert (server.flavor, server.version) == ("mariadb", "10.11.6-MariaDB")


def test_a_server_added_with_a_long_interval_is_first_polled_within_a_minute(db):
    state.client().delete(DUE_KEY)
    assert claim_due([(1, 3600), (2, 10)], START) == []  # registers them
    # Each at its fraction of the spread (id x 0.6180339887, less its whole part): an hourly server within the
    # first minute (not 0.618 of an hour, 37 minutes, later), a 10 s server within its interval.
    assert scores() == pytest.approx({1: START + 0.6180339887 * 60, 2: START + 0.2360679774 * 10})
    assert dict(claim_due([(1, 3600), (2, 10)], START + 38))[1] == pytest.approx(START + 37.082039)
