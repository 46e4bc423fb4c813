"""A bounded Redis buffer for samples while PostgreSQL is unreachable.

Pushing beyond the bound drops the oldest samples and records a gap per
server, so a hole is always visible (query.gaps), never silent. Draining
moves a batch to an in-flight list first, so a worker that dies mid-write
loses nothing: the next drain writes that batch again (writes are idempotent).
"""

import json
import logging
import zlib
from collections.abc import Callable
from datetime import datetime

import redis

from store import config, redis_client
from store.models import Gap
from store.points import from_micros, micros
from store.sample import Sample

log = logging.getLogger(__name__)

KEY = "steadystate:store:buffer"
INFLIGHT = "steadystate:store:inflight"
GAPS = "steadystate:store:gaps"
LOCK = "steadystate:store:drain-lock"
NEWEST = "steadystate:store:newest"  # server -> the newest read time (Unix us) of a sample of it ever buffered
NEWEST_TTL = 7 * 24 * 3600  # as long as a server's snapshots (collectors.snapshots) are kept
BATCH = 500

# Append samples and drop the oldest beyond the bound, atomically; return the dropped. ARGV: the bound, NEWEST's
# TTL, n, n (server, newest read time) pairs raising NEWEST (in the same step: no sample is buffered unmarked),
# then the samples.
PUSH_BOUNDED = """
local n = tonumber(ARGV[3])
for i = 4, 2 + 2 * n, 2 do
  if tonumber(ARGV[i + 1]) > tonumber(redis.call('HGET', KEYS[2], ARGV[i]) or '-1') then
    redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1])
  end
end
redis.call('EXPIRE', KEYS[2], ARGV[2])
redis.call('RPUSH', KEYS[1], unpack(ARGV, 4 + 2 * n))
local excess = redis.call('LLEN', KEYS[1]) - tonumber(ARGV[1])
if excess > 0 then return redis.call('LPOP', KEYS[1], excess) end
return {}
"""
# Move up to N of the oldest samples to the in-flight list, atomically.
TAKE_BATCH = """
local items = redis.call('LPOP', KEYS[1], tonumber(ARGV[1]))
if not items then return {} end
redis.call('RPUSH', KEYS[2], unpack(items))
return items
"""

# Merge a drop into the server's open gap: {start, end} in Unix microseconds, n samples.
WIDEN_GAP = """
local cur = redis.call('HGET', KEYS[1], ARGV[1])
local d = {start = tonumber(ARGV[2]), ['end'] = tonumber(ARGV[3]), n = tonumber(ARGV[4])}
if cur then
  local c = cjson.decode(cur)
  d.start = math.min(d.start, c.start)
  d['end'] = math.max(d['end'], c['end'])
  d.n = d.n + c.n
end
redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(d))
"""
REASON = "samples dropped: the store buffer was full while PostgreSQL was unreachable ({n} samples)"

def client() -> redis.Redis:
    return redis_client.shared()


def encode(s: Sample) -> bytes:
    doc = {"s": s.server_id, "src": s.source, "ts": s.ts.isoformat(), "i": s.interval,
           "v": s.values, "c": sorted(s.counters)}
    return zlib.compress(json.dumps(doc, default=_plain).encode(), 1)


def _plain(value):
    """numpy scalars (and anything else with .item()) as Python numbers."""
    if hasattr(value, "item"):
        return value.item()
    raise TypeError(f"store: cannot buffer a value of type {type(value).__name__}")


def decode(item) -> Sample:
    d = json.loads(zlib.decompress(item))
    return Sample(d["s"], d["src"], datetime.fromisoformat(d["ts"]), d["i"], d["v"], frozenset(d["c"]))


def push(samples: list[Sample]) -> None:
    """Buffer samples; if the bound is exceeded, drop the oldest and record gaps."""
    for i in range(0, len(samples), BATCH):
        chunk = samples[i:i + BATCH]
        newest: dict[int, int] = {}
        for s in chunk:
            newest[s.server_id] = max(newest.get(s.server_id, -1), micros(s.ts))
        marks = [part for pair in newest.items() for part in pair]
        dropped = client().eval(PUSH_BOUNDED, 2, KEY, NEWEST, config.buffer_max_samples(), NEWEST_TTL, len(newest),
                                *marks, *(encode(s) for s in chunk))
        if dropped:
            record_gaps([decode(x) for x in dropped])


def record_gaps(dropped: list[Sample]) -> None:
    """Widen the server's open gap to cover the dropped samples (one hole, not one per sample)."""
    spans: dict[int, list[int]] = {}
    for s in dropped:
        spans.setdefault(s.server_id, []).append(micros(s.ts))
    for server_id, stamps in spans.items():
        log.error("store: buffer full, %d samples of server %s dropped", len(stamps), server_id)
        client().eval(WIDEN_GAP, 1, GAPS, server_id, min(stamps), max(stamps), len(stamps))


def buffered_since(server_id: int, at: datetime) -> bool:
    """Whether a sample of the server read at or after `at` was ever buffered (it is in the buffer, or written from
    it, or dropped beyond the bound with a gap recorded): NEWEST is raised with each push and never lowered."""
    newest = client().hget(NEWEST, server_id)
    return newest is not None and int(newest) >= micros(at)


def pending() -> bool:
    # Redis drops a list or hash once it is empty: one EXISTS, not a pipeline of their three lengths, every write.
    return bool(client().exists(KEY, INFLIGHT, GAPS))


def pending_gaps() -> list[tuple[int, datetime, datetime, str]]:
    """Open gaps not yet saved to PostgreSQL: (server_id, start, end, reason)."""
    out = []
    for server_id, raw in client().hgetall(GAPS).items():
        d = json.loads(raw)
        out.append((int(server_id), from_micros(d["start"]), from_micros(d["end"]), REASON.format(n=d["n"])))
    return sorted(out)


def drain(write: Callable[[list[Sample]], None]) -> int:
    """Write buffered samples with write() (oldest first) and the recorded gaps."""
    lock = client().lock(LOCK, timeout=120, blocking=False)
    if not lock.acquire():
        return 0  # another worker is draining
    written = 0
    try:
        while items := client().lrange(INFLIGHT, 0, -1) or client().eval(TAKE_BATCH, 2, KEY, INFLIGHT, BATCH):
            write([decode(x) for x in items])
            client().delete(INFLIGHT)
            written += len(items)
        _save_gaps()
    finally:
        release(lock)
    if written:
        log.info("store: wrote %d buffered samples", written)
    return written


def _save_gaps() -> None:
    for server_id, start, end, reason in pending_gaps():
        Gap.objects.create(server_id=server_id, start=start, end=end, reason=reason)
        client().hdel(GAPS, server_id)


def release(lock) -> None:
    """Release a Redis lock; if it expired meanwhile, the work is done anyway (writes are idempotent)."""
    try:
        lock.release()
    except redis.exceptions.LockError:
        log.warning("store: lock %s expired before it was released", lock.name)
