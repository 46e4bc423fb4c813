"""The previous readings of each server in Redis, loaded and saved for a whole batch at once.

One hash per server: fields are source names (the JSON snapshot), "attempt:<source>"
(when it last ran, successful or not, so a failing expensive source keeps its own
interval) and "gen" (a token written with every save). This process keeps the snapshots
it last decoded or saved; when the hash's gen is still the one it knows, the snapshots
are not decoded again (JSON decoding ~600 values per poll was a visible share of a
poll's CPU). Another worker's save changes gen, so it is always decoded then.
"""

import secrets
import threading

import redis

from collectors import registry, state
from collectors.delta import Snapshot

SNAPSHOT_KEY = "collectors:snap:{}"  # hash per server: source -> JSON snapshot
SNAPSHOT_TTL = 7 * 24 * 3600  # a deleted or disabled server's snapshots expire
GEN = b"gen"
ATTEMPT = "attempt:"

Saved = tuple[dict[str, Snapshot], dict[str, float]]  # snapshots, attempts


class SnapshotStore:
    def __init__(self, client: redis.Redis):
        self.client = client
        self._known: dict[int, tuple[bytes | None, dict[str, Snapshot]]] = {}  # id -> (gen, snapshots)
        self._lock = threading.Lock()

    def load(self, server_id: int) -> Saved:
        return self.load_many([server_id])[server_id]

    def load_many(self, server_ids: list[int]) -> dict[int, Saved]:
        """Snapshots and attempts of each server: the gen tokens and attempts in one round trip, then the
        snapshots only of the servers whose gen this process does not know, in a second.

        The snapshots a process saved last are in its cache: reading them back from Redis every poll
        (some 20 kB of JSON a server, parsed by the client and then dropped) was a twentieth of a poll's CPU.
        """
        names = list(registry.SOURCES)
        fields: list[str | bytes] = [GEN, *(f"{ATTEMPT}{name}" for name in names)]
        pipe = self.client.pipeline(transaction=False)
        for server_id in server_ids:
            pipe.hmget(SNAPSHOT_KEY.format(server_id), fields)
        found: dict[int, Saved] = {}
        for server_id, (gen, *times) in zip(server_ids, pipe.execute(), strict=True):
            with self._lock:
                known = self._known.get(server_id)
            if gen is not None and known is not None and known[0] == gen:
                attempts = {name: float(ts) for name, ts in zip(names, times, strict=True) if ts is not None}
                found[server_id] = dict(known[1]), attempts
        stale = [server_id for server_id in server_ids if server_id not in found]
        if stale:
            pipe = self.client.pipeline(transaction=False)
            for server_id in stale:
                pipe.hgetall(SNAPSHOT_KEY.format(server_id))
            found.update({server_id: self._decode(server_id, raw)
                          for server_id, raw in zip(stale, pipe.execute(), strict=True)})
        return {server_id: found[server_id] for server_id in server_ids}

    def save(self, server_id: int, snapshots: dict[str, Snapshot], attempts: dict[str, float]) -> None:
        self.save_many({server_id: (snapshots, attempts)})

    def save_many(self, saved: dict[int, Saved]) -> None:
        """New snapshots and attempts of each server (merged into what is stored), in one round trip.

        Each server's save follows its load in the same poll, under its poll lock.
        """
        pipe = self.client.pipeline(transaction=False)
        for server_id, (snapshots, attempts) in saved.items():
            if not snapshots and not attempts:
                continue
            gen = secrets.token_hex(8).encode()
            mapping: dict = {name: snap.dumps() for name, snap in snapshots.items()}
            mapping.update({f"{ATTEMPT}{name}": repr(ts) for name, ts in attempts.items()})
            mapping[GEN] = gen
            key = SNAPSHOT_KEY.format(server_id)
            pipe.hset(key, mapping=mapping)
            pipe.expire(key, SNAPSHOT_TTL)
            self._remember(server_id, gen, snapshots)
        if len(pipe):
            pipe.execute()

    def forget(self, server_id: int) -> None:
        with self._lock:
            self._known.pop(server_id, None)
        self.client.delete(SNAPSHOT_KEY.format(server_id))

    def _decode(self, server_id: int, raw: dict[bytes, bytes]) -> Saved:
        attempts = {key[len(ATTEMPT):].decode(): float(value) for key, value in raw.items()
                    if key.startswith(ATTEMPT.encode())}
        gen = raw.get(GEN)
        with self._lock:
            known = self._known.get(server_id)
        if gen is not None and known is not None and known[0] == gen:
            return dict(known[1]), attempts
        snapshots = {key.decode(): Snapshot.loads(value) for key, value in raw.items()
                     if key != GEN and not key.startswith(ATTEMPT.encode())}
        with self._lock:
            self._known[server_id] = (gen, snapshots)
        return dict(snapshots), attempts

    def _remember(self, server_id: int, gen: bytes, snapshots: dict[str, Snapshot]) -> None:
        """What this save leaves in the hash: the known snapshots (if still current) plus the new ones.

        Only called with the server's poll lock held, so nobody else saves in between.
        """
        with self._lock:
            known = self._known.get(server_id)
            self._known[server_id] = (gen, {**(known[1] if known else {}), **snapshots})


_STORE: SnapshotStore | None = None


def store() -> SnapshotStore:
    """The process's store (its cache of decoded snapshots is per process)."""
    global _STORE
    if _STORE is None:
        _STORE = SnapshotStore(state.client())
    return _STORE
