"""Snapshots in Redis: a batch loads and saves them at once; a worker's cache never hides another's save;
a poll killed between staging and committing them is settled by what reached the store."""

from datetime import UTC, datetime, timedelta

import pytest

from collectors import state
from collectors.delta import Snapshot
from collectors.snapshots import SNAPSHOT_KEY, SnapshotStore
from store import buffer
from store.ingest import write_samples
from store.sample import Sample
from testing.postgres import restart_postgres, stop_postgres

SERVER = 987_001  # no such server: the snapshots alone are tested


def snap(value: int) -> Snapshot:
    return Snapshot(1000.0 + value, 5.0, {"Com_commit": value, "wait.time_ps:x": 10**20 + value})


def test_a_save_by_another_worker_is_read_not_the_cached_snapshot():
    mine, other = SnapshotStore(state.client()), SnapshotStore(state.client())
    mine.forget(SERVER)
    mine.load(SERVER)
    mine.save(SERVER, {"global_status": snap(1), "pfs_waits": snap(2)}, {"global_status": 1.0, "pfs_waits": 1.0})
    assert mine.load(SERVER)[0]["global_status"].values["Com_commit"] == 1  # from its cache
    assert other.load(SERVER)[0]["pfs_waits"].values["wait.time_ps:x"] == 10**20 + 2  # decoded
    other.save(SERVER, {"global_status": snap(3)}, {"global_status": 2.0})
    found, attempts = mine.load(SERVER)
    assert found["global_status"].values["Com_commit"] == 3 and found["pfs_waits"].values["Com_commit"] == 2
    assert attempts == {"global_status": 2.0, "pfs_waits": 1.0}
    mine.forget(SERVER)


def test_a_batch_loads_and_saves_many_servers_and_keeps_what_it_did_not_poll():
    store = SnapshotStore(state.client())
    ids = [SERVER + 1, SERVER + 2]
    store.load_many(ids)
    store.save_many({ids[0]: ({"variables": snap(7)}, {"variables": 3.0}), ids[1]: ({}, {})})
    store.load_many(ids)
    store.save_many({ids[0]: ({"global_status": snap(8)}, {"global_status": 4.0})})
    fresh = SnapshotStore(state.client()).load_many(ids)
    assert set(fresh[ids[0]][0]) == {"variables", "global_status"} and fresh[ids[1]] == ({}, {})
    assert store.load_many(ids)[ids[0]][0]["variables"].values == fresh[ids[0]][0]["variables"].values
    for server_id in ids:
        store.forget(server_id)


def killed_between_stage_and_commit(server_id: int, at: datetime) -> SnapshotStore:
    """A poll's snapshots staged over a stored one, as a worker killed while writing the samples leaves them."""
    store = SnapshotStore(state.client())
    store.forget(server_id)
    store.save(server_id, {"global_status": snap(10)}, {"global_status": 1.0})
    store.stage_many({server_id: ({"global_status": snap(25)}, {"global_status": 2.0})}, at)
    return store


@pytest.mark.django_db
def test_a_poll_killed_after_writing_its_samples_is_committed_by_the_next_load():
    at = datetime.now(UTC) - timedelta(seconds=5)
    killed_between_stage_and_commit(SERVER + 3, at)
    write_samples([Sample(SERVER + 3, "global_status", at + timedelta(seconds=0.01), 5.0, {"Com_commit": 15},
                          frozenset({"Com_commit"}))])
    found, attempts = SnapshotStore(state.client()).load(SERVER + 3)  # another worker, as after a kill
    assert found["global_status"].values["Com_commit"] == 25 and attempts == {"global_status": 2.0}
    assert not [f for f in state.client().hkeys(SNAPSHOT_KEY.format(SERVER + 3)) if f.startswith((b"next:", b"st"))]


@pytest.mark.django_db
def test_a_poll_killed_before_its_samples_were_written_is_dropped_by_the_next_load():
    at = datetime.now(UTC) - timedelta(seconds=5)
    write_samples([Sample(SERVER + 4, "global_status", at - timedelta(seconds=5), 5.0, {"Com_commit": 3},
                          frozenset({"Com_commit"}))])  # the poll before: not this one's samples
    killed_between_stage_and_commit(SERVER + 4, at)
    found, attempts = SnapshotStore(state.client()).load(SERVER + 4)
    assert found["global_status"].values["Com_commit"] == 10 and attempts == {"global_status": 1.0}
    fresh = SnapshotStore(state.client())
    assert fresh.load(SERVER + 4)[0]["global_status"].values["Com_commit"] == 10  # dropped, not just skipped


@pytest.mark.django_db
def test_a_poll_whose_lock_expired_does_not_commit_the_next_polls_stage():
    at = datetime.now(UTC) - timedelta(seconds=5)
    slow = killed_between_stage_and_commit(SERVER + 5, at)  # still writing its samples when its lock expired
    other = SnapshotStore(state.client())
    assert other.load(SERVER + 5)[0]["global_status"].values["Com_commit"] == 10  # its stage dropped
    other.stage_many({SERVER + 5: ({"global_status": snap(40)}, {"global_status": 3.0})}, datetime.now(UTC))
    slow.commit_many([SERVER + 5])
    raw = state.client().hgetall(SNAPSHOT_KEY.format(SERVER + 5))
    assert Snapshot.loads(raw[b"global_status"]).values["Com_commit"] == 10 and b"staged" in raw
    other.commit_many([SERVER + 5])
    assert SnapshotStore(state.client()).load(SERVER + 5)[0]["global_status"].values["Com_commit"] == 40


@pytest.mark.django_db
def test_a_live_workers_poll_still_writing_its_samples_is_committed_not_dropped(monkeypatch):
    """Its lock expired while it wrote them: its samples will land, so the next poll measures from its readings
    (dropped, that interval would be counted again by the next poll and stored twice)."""
    monkeypatch.setattr(state, "OWNER", "slow-worker")
    state.client().set(state.WORKER_KEY.format("slow-worker"), "1", px=10_000)  # its heartbeat
    killed_between_stage_and_commit(SERVER + 8, datetime.now(UTC) - timedelta(seconds=5))
    monkeypatch.setattr(state, "OWNER", "")
    assert SnapshotStore(state.client()).load(SERVER + 8)[0]["global_status"].values["Com_commit"] == 25
    state.client().delete(state.WORKER_KEY.format("slow-worker"))


@pytest.mark.django_db
def test_a_servers_first_poll_cut_before_its_commit_is_kept_as_the_baseline():
    """A first poll writes no deltas, so keeping its readings loses nothing; dropped, the next poll would only
    take a baseline and the interval after the first poll would be lost."""
    store = SnapshotStore(state.client())
    store.forget(SERVER + 9)
    store.load(SERVER + 9)
    store.stage_many({SERVER + 9: ({"global_status": snap(7)}, {"global_status": 1.0})}, datetime.now(UTC))
    assert SnapshotStore(state.client()).load(SERVER + 9)[0]["global_status"].values["Com_commit"] == 7


def buffered(server_id: int, at: datetime) -> bytes:
    """A sample of the poll staged at `at` in the store's Redis buffer, as a write with PostgreSQL down leaves it
    (pushed here: another test's write would flush it); the item, to take out again."""
    sample = Sample(server_id, "global_status", at + timedelta(seconds=0.01), 5.0, {"Com_commit": 15},
                    frozenset({"Com_commit"}))
    buffer.push([sample])
    return buffer.encode(sample)


def unbuffered(item: bytes, *server_ids: int) -> None:
    buffer.client().execute_command("LREM", buffer.KEY, 0, item)  # bytes: lrem is typed for str
    buffer.client().hdel(buffer.NEWEST, *server_ids)


@pytest.mark.django_db
def test_a_poll_killed_after_its_samples_were_buffered_is_committed_by_the_next_load():
    # PostgreSQL was down when the poll wrote its samples, and is back before the buffer is written: its delta
    # (10 -> 25) waits in the buffer, so the next poll measures from 25 (dropped, it measured 10 -> its reading
    # and the buffered 15 was stored as well).
    at = datetime.now(UTC) - timedelta(seconds=5)
    killed_between_stage_and_commit(SERVER + 6, at)
    item = buffered(SERVER + 6, at)
    try:
        found, attempts = SnapshotStore(state.client()).load(SERVER + 6)
    finally:
        unbuffered(item, SERVER + 6)
    assert found["global_status"].values["Com_commit"] == 25 and attempts == {"global_status": 2.0}


@pytest.mark.django_db(transaction=True)
def test_a_staged_poll_is_settled_with_postgresql_down_and_the_batch_goes_on():
    # Polls go on through an outage (their samples buffered); a staged poll must not fail its batch's load.
    at = datetime.now(UTC) - timedelta(seconds=5)
    killed_between_stage_and_commit(SERVER + 7, at)  # its samples buffered: committed
    killed_between_stage_and_commit(SERVER + 8, at)  # killed before writing them: dropped
    item = buffered(SERVER + 7, at)
    stop_postgres()
    try:
        found = SnapshotStore(state.client()).load_many([SERVER + 7, SERVER + 8])
    finally:
        restart_postgres()
        unbuffered(item, SERVER + 7)
    assert found[SERVER + 7][0]["global_status"].values["Com_commit"] == 25
    assert found[SERVER + 8][0]["global_status"].values["Com_commit"] == 10
