"""How many CSV exports may stream at once: per user across web processes (Redis), and per web process.

A long export holds a web thread for as long as it streams; without a bound, one viewer opening ten
of them took every thread and the login page stopped answering. A user's slots are members of a
Redis sorted set scored by their lease's end: a web process that dies frees its slots when the
leases run out, while a live process renews the leases of the streams it still serves.
"""

import atexit
import logging
import threading
import time
import uuid
from collections.abc import Iterable, Iterator

import redis
from django.conf import settings

from store.redis_client import shared

log = logging.getLogger(__name__)

LEASE = 60  # seconds a slot outlives a web process that stopped renewing it
RENEW_EVERY = LEASE / 4
# Expired slots out, then one more if the user holds fewer than the limit; 1 when taken.
TAKE = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[1] + ARGV[2], ARGV[4])
redis.call('EXPIRE', KEYS[1], ARGV[2])
return 1
"""

_streaming = 0  # exports this process streams now
_held: dict[str, str] = {}  # slot id -> Redis key, renewed by the renewer thread
_lock = threading.Lock()


class Busy(Exception):
    """No slot: the message says which bound and what to do."""


def key(user_id: int) -> str:
    return f"steadystate:exports:user:{user_id}"


def take(user_id: int) -> str:
    """A slot for one export of this user, or Busy. Redis unreachable: only the per-process bound holds."""
    global _streaming
    with _lock:
        if _streaming >= settings.EXPORT_PER_PROCESS:
            raise Busy(f"this web process is already streaming {settings.EXPORT_PER_PROCESS} exports "
                       "(EXPORT_PER_PROCESS): try again when one has finished")
        _streaming += 1
    slot = uuid.uuid4().hex
    try:
        taken = shared().eval(TAKE, 1, key(user_id), time.time(), LEASE, settings.EXPORT_PER_USER, slot)
    except redis.RedisError as exc:
        log.warning("export slots: Redis unreachable (%s), bounding exports per process only", exc)
        return slot
    if not taken:
        _leave_process()
        raise Busy(f"you already have {settings.EXPORT_PER_USER} CSV exports streaming (EXPORT_PER_USER): "
                   "wait for one to finish, then ask again")
    with _lock:
        _held[slot] = key(user_id)
        _start_renewer()
    return slot


def _leave_process() -> None:
    global _streaming
    with _lock:
        _streaming = max(0, _streaming - 1)


def give_back(slot: str) -> None:
    with _lock:
        redis_key = _held.pop(slot, None)
    _leave_process()
    if redis_key:
        try:
            shared().zrem(redis_key, slot)
        except redis.RedisError:
            pass  # its lease runs out


def held_while(slot: str, content: Iterable[bytes]) -> Iterator[bytes]:
    """The stream, giving its slot back when it ends, fails or the client goes away (close())."""
    try:
        yield from content
    finally:
        give_back(slot)


_renewer: threading.Thread | None = None
_exiting = threading.Event()  # set at exit, before the embedded Redis is stopped (atexit runs last-in first)


def _start_renewer() -> None:
    global _renewer
    if _renewer is None or not _renewer.is_alive():
        _renewer = threading.Thread(target=_renew_forever, name="export-slot-renewer", daemon=True)
        _renewer.start()
        atexit.register(_exiting.set)


def _renew_forever() -> None:
    while not _exiting.wait(RENEW_EVERY):
        with _lock:
            held = list(_held.items())
        try:
            for slot, redis_key in held:
                shared().zadd(redis_key, {slot: time.time() + LEASE}, xx=True)
                shared().expire(redis_key, LEASE)
        except redis.RedisError as exc:
            log.warning("export slots: could not renew leases (%s)", exc)
