"""Shared state in Redis: the client, the per-server lock that keeps polls of one server apart,
and the heartbeat that tells a live worker's locks from a dead one's.

A lock's value is "<owner>|<random>". A Celery worker process names itself (its hostname)
and keeps collectors:worker:<hostname> alive in Redis; when that key expires (the worker was
killed, or its machine died), another worker may take the dead one's locks at once instead
of waiting for their TTL (30 s or more): its servers are polled again within an interval or two.
Callers without an owner (commands, tests) are covered by the TTL only.
"""

import secrets
import threading
import time

import redis
from django.conf import settings

from store import redis_client

LOCK_KEY = "collectors:lock:{}"
WORKER_KEY = "collectors:worker:{}"
OWNER = ""  # this process's worker name, once start_heartbeat() ran
# KEYS = lock keys; ARGV = the worker key's prefix, then (token, ttl ms) per key.
# A lock is taken when free, or when its owner named a worker whose heartbeat is gone.
ACQUIRE_LUA = """
local taken = {}
for i, key in ipairs(KEYS) do
  local token, ttl = ARGV[2 * i], ARGV[2 * i + 1]
  local ok = redis.call('SET', key, token, 'NX', 'PX', ttl)
  if not ok then
    local owner = string.match(redis.call('GET', key) or '', '^(.*)|')
    if owner and owner ~= '' and redis.call('EXISTS', ARGV[1] .. owner) == 0 then
      ok = redis.call('SET', key, token, 'PX', ttl)
    end
  end
  taken[i] = ok and 1 or 0
end
return taken
"""
# Deletes each lock of KEYS only if it is still ours, its token in ARGV (it may have expired and been taken since).
# One command a batch: a pipeline of one script call a server paid the client's packing and parsing per server.
RELEASE_LUA = """
local released = 0
for i, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[i] then released = released + redis.call('DEL', key) end
end
return released
"""


def client() -> redis.Redis:
    return redis_client.shared()


def acquire_lock(server_id: int, ttl_seconds: float) -> str | None:
    """A token if this caller may poll the server now, None if a poll of it is running."""
    return acquire_locks({server_id: ttl_seconds})[server_id]


def release_lock(server_id: int, token: str) -> None:
    client().eval(RELEASE_LUA, 1, LOCK_KEY.format(server_id), token)


def acquire_locks(wanted: dict[int, float]) -> dict[int, str | None]:
    """acquire_lock for many servers ({id: ttl seconds}) in one round trip."""
    if not wanted:
        return {}
    tokens = {server_id: f"{OWNER}|{secrets.token_hex(8)}" for server_id in wanted}
    args = [WORKER_KEY.format("")]
    for server_id, ttl in wanted.items():
        args += [tokens[server_id], str(int(ttl * 1000))]
    keys = [LOCK_KEY.format(server_id) for server_id in wanted]
    replies = client().eval(ACQUIRE_LUA, len(keys), *keys, *args)
    return {server_id: tokens[server_id] if ok else None for server_id, ok in zip(wanted, replies, strict=True)}


def release_locks(tokens: dict[int, str]) -> None:
    """release_lock for many servers ({id: token}) in one round trip."""
    if not tokens:
        return
    client().eval(RELEASE_LUA, len(tokens), *(LOCK_KEY.format(server_id) for server_id in tokens), *tokens.values())


def start_heartbeat(owner: str) -> threading.Thread:
    """Name this process's locks after owner and keep its heartbeat alive while the process lives."""
    global OWNER
    OWNER = owner.replace("|", "_")
    beat()
    thread = threading.Thread(target=heartbeat_loop, name="collectors-heartbeat", daemon=True)
    thread.start()
    return thread


def heartbeat_loop() -> None:
    while True:
        time.sleep(settings.COLLECTORS_HEARTBEAT_TTL / 3)  # refreshed three times per period
        try:
            beat()
        except redis.RedisError:
            pass  # Redis away: the locks cannot be taken from us either; beat again next time


def beat() -> None:
    client().set(WORKER_KEY.format(OWNER), "1", px=int(settings.COLLECTORS_HEARTBEAT_TTL * 1000))
