"""The previous readings of each server in Redis, loaded and saved for a whole batch at once.

One hash per server: fields are source names (the JSON snapshot), "attempt:<source>"
(when it last ran, successful or not, so a failing expensive source keeps its own
interval) and "gen" (a token written with every save). This process keeps the snapshots
it last decoded or saved; when the hash's gen is still the one it knows, the snapshots
are not decoded again (JSON decoding ~600 values per poll was a visible share of a
poll's CPU). Another worker's save changes gen, so it is always decoded then.

A poll's save is staged (under "next:" names, with the poll's time in "staged") before its
samples are written and committed after: a worker killed in between leaves the staged
snapshots, which the next poll's load commits if that poll's samples reached the store and
drops if not. Either way each counter delta is stored once, neither lost nor counted twice.
"""

import secrets
import threading
from datetime import UTC, datetime

import redis

from collectors import registry, state
from collectors.delta import Snapshot

SNAPSHOT_KEY = "collectors:snap:{}"  # hash per server: source -> JSON snapshot
SNAPSHOT_TTL = 7 * 24 * 3600  # a deleted or disabled server's snapshots expire
GEN = b"gen"
ATTEMPT = "attempt:"
NEXT = "next:"  # a staged field, committed once the poll's samples are written
STAGED = b"staged"  # "<the staged poll's start, epoch seconds>|<its worker>", until it is committed or dropped
NEXT_ATTEMPT, NEXT_GEN, STAGED_TEXT = NEXT + ATTEMPT, NEXT + GEN.decode(), STAGED.decode()  # stage_many's names

# Moves each server's staged fields onto their names and drops its mark: KEYS, the servers' hashes; ARGV, the
# gen each one's poll staged ("": whatever is staged). A poll whose lock expired while it wrote its samples
# finds another gen staged and leaves that poll's stage alone. One call a batch.
COMMIT = """
local moved = 0
for k, key in ipairs(KEYS) do
  if ARGV[k] == '' or redis.call('HGET', key, 'next:gen') == ARGV[k] then
    for _, field in ipairs(redis.call('HKEYS', key)) do
      if string.sub(field, 1, 5) == 'next:' then
        redis.call('HSET', key, string.sub(field, 6), redis.call('HGET', key, field))
        redis.call('HDEL', key, field)
      end
    end
    redis.call('HDEL', key, 'staged')
    moved = moved + 1
  end
end
return moved
"""
# Each server's fields of ARGV (KEYS: the servers' hashes): one command a batch, where a pipeline of one HMGET a
# server paid the client's packing and reply parsing per command. A missing field is false, which Redis answers as nil.
READ = """
local found = {}
for k, key in ipairs(KEYS) do
  found[k] = redis.call('HMGET', key, unpack(ARGV))
end
return found
"""
# Stages a server's fields (ARGV: the TTL, then field names and values) and keeps its hash the TTL: one command a
# server where HSET and EXPIRE were two (a batch's in one command would be one buffer of ~0.5 MB, which hiredis
# packs slower than 25 small ones).
STAGE = """
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
return redis.call('EXPIRE', KEYS[1], ARGV[1])
"""

Saved = tuple[dict[str, Snapshot], dict[str, float]]  # snapshots, attempts


class SnapshotStore:
    def __init__(self, client: redis.Redis):
        self.client = client
        self._known: dict[int, tuple[bytes | None, dict[str, Snapshot]]] = {}  # id -> (gen, snapshots)
        self._lock = threading.Lock()
        self._commit = client.register_script(COMMIT)
        self._read = client.register_script(READ)

    def load(self, server_id: int) -> Saved:
        return self.load_many([server_id])[server_id]

    def load_many(self, server_ids: list[int]) -> dict[int, Saved]:
        """Snapshots and attempts of each server: the gen tokens and attempts in one round trip, then the
        snapshots only of the servers whose gen this process does not know, in a second.

        The snapshots a process saved last are in its cache: reading them back from Redis every poll
        (some 20 kB of JSON a server, parsed by the client and then dropped) was a twentieth of a poll's CPU.
        """
        names = list(registry.SOURCES)
        fields: list[str | bytes] = [GEN, STAGED, *(f"{ATTEMPT}{name}" for name in names)]
        replies = self._read(keys=[SNAPSHOT_KEY.format(server_id) for server_id in server_ids], args=fields)
        found: dict[int, Saved] = {}
        for server_id, (gen, staged, *times) in zip(server_ids, replies, strict=True):
            if staged is not None:
                self._settle(server_id, staged, gen)
                continue
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
        """Stage and commit at once (where no samples are written in between)."""
        self.stage_many(saved, datetime.now(UTC))
        self.commit_many(list(saved))

    def stage_many(self, saved: dict[int, Saved], at: datetime | dict[int, datetime]) -> None:
        """New snapshots and attempts of each server (merged into what is stored once committed), staged in one
        atomic round trip; at: when the polls started (one time, or one a server).

        Each server's save follows its load in the same poll, under its poll lock.
        """
        pipe = self.client.pipeline(transaction=True)  # all staged or none: a half-staged poll is not told
        for server_id, (snapshots, attempts) in saved.items():
            if not snapshots and not attempts:
                continue
            gen = secrets.token_hex(8).encode()
            # The fields under their staged names at once: ~15 a server, each named once, not renamed after.
            staged: list = [SNAPSHOT_TTL]
            for name, snap in snapshots.items():
                staged += (NEXT + name, snap.dumps())
            for name, ts in attempts.items():
                staged += (NEXT_ATTEMPT + name, repr(ts))
            started = at if isinstance(at, datetime) else at[server_id]
            # when, and which worker writes it
            staged += (NEXT_GEN, gen, STAGED_TEXT, f"{started.timestamp()!r}|{state.OWNER}")
            pipe.eval(STAGE, 1, SNAPSHOT_KEY.format(server_id), *staged)
            self._remember(server_id, gen, snapshots)  # its gen: the one commit_many() commits
        if len(pipe):
            pipe.execute()

    def commit_many(self, server_ids: list[int]) -> None:
        """The staged snapshots of these servers become the stored ones (their samples are written): the gen each
        one staged is the one this process remembers of it (its poll lock is still held)."""
        with self._lock:
            known = {server_id: self._known.get(server_id) for server_id in server_ids}
        gens = {server_id: k[0] for server_id, k in known.items() if k is not None and k[0] is not None}
        if gens:
            self._commit(keys=[SNAPSHOT_KEY.format(server_id) for server_id in gens], args=list(gens.values()))

    def _settle(self, server_id: int, staged: bytes, gen: bytes | None) -> None:
        """A poll staged its snapshots and was not committed: its worker died while it wrote its samples, or is
        still writing them after its lock expired. Commit them if that worker is alive (its samples are on their
        way), if the server had no stored snapshots (a first poll writes no deltas), or if its samples reached the
        store; drop them if not."""
        from store.ingest import written_since  # here: the standalone collector imports this module without Django

        at, _, owner = _text(staged).partition("|")
        key = SNAPSHOT_KEY.format(server_id)
        alive = bool(owner) and bool(self.client.exists(state.WORKER_KEY.format(owner)))
        if alive or gen is None or written_since(server_id, datetime.fromtimestamp(float(at), UTC)):
            self._commit(keys=[key], args=[""])
        else:
            dropped = [f for f in self.client.hkeys(key) if _text(f).startswith(NEXT)]
            self.client.hdel(key, STAGED, *dropped)

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
                     if key not in (GEN, STAGED) and not key.startswith((ATTEMPT.encode(), NEXT.encode()))}
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


def _text(name: str | bytes) -> str:
    return name.decode() if isinstance(name, bytes) else name


_STORE: SnapshotStore | None = None


def store() -> SnapshotStore:
    """The process's store (its cache of decoded snapshots is per process)."""
    global _STORE
    if _STORE is None:
        _STORE = SnapshotStore(state.client())
    return _STORE
