"""Snapshots in Redis: a batch loads and saves them at once; a worker's cache never hides another's save."""

from collectors import state
from collectors.delta import Snapshot
from collectors.snapshots import SnapshotStore

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
