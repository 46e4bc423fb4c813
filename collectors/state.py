"""Shared state in Redis: the client, and the per-server lock that keeps polls of one server apart."""

import secrets

import redis

from store import redis_client

LOCK_KEY = "collectors:lock:{}"
# Deletes the lock only if it is still ours (it may have expired and been taken since).
RELEASE_LUA = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0"


def client() -> redis.Redis:
    return redis_client.shared()


def acquire_lock(server_id: int, ttl_seconds: float) -> str | None:
    """A token if this caller may poll the server now, None if a poll of it is running."""
    token = secrets.token_hex(8)
    if client().set(LOCK_KEY.format(server_id), token, nx=True, px=int(ttl_seconds * 1000)):
        return token
    return None


def release_lock(server_id: int, token: str) -> None:
    client().eval(RELEASE_LUA, 1, LOCK_KEY.format(server_id), token)


def acquire_locks(wanted: dict[int, float]) -> dict[int, str | None]:
    """acquire_lock for many servers ({id: ttl seconds}) in one round trip."""
    tokens = {server_id: secrets.token_hex(8) for server_id in wanted}
    pipe = client().pipeline(transaction=False)
    for server_id, ttl in wanted.items():
        pipe.set(LOCK_KEY.format(server_id), tokens[server_id], nx=True, px=int(ttl * 1000))
    replies = pipe.execute()
    return {server_id: tokens[server_id] if ok else None for server_id, ok in zip(wanted, replies, strict=True)}


def release_locks(tokens: dict[int, str]) -> None:
    """release_lock for many servers ({id: token}) in one round trip."""
    if not tokens:
        return
    pipe = client().pipeline(transaction=False)
    for server_id, token in tokens.items():
        pipe.eval(RELEASE_LUA, 1, LOCK_KEY.format(server_id), token)
    pipe.execute()
