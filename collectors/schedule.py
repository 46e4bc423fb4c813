"""Which servers are due: next-due times in a Redis sorted set, claimed atomically.

Claiming moves a server's next-due time forward inside one Lua script, so two
dispatchers (or a retried beat tick) can never hand out the same poll twice.
"""

import zlib
from functools import lru_cache

from collectors import state

DUE_KEY = "collectors:due"
GOLDEN = 0.6180339887  # spreads new servers' first polls evenly over their interval
FIRST_POLLS_PER_SECOND = 25  # a first poll costs several later ones: at most this many a second (docs/sources.md)
# New servers' first polls are spread over their interval up to this many seconds: an hourly server added
# had its first poll up to an hour later, its pages empty and its Test connection's promise unkept meanwhile.
FIRST_SPREAD_S = 60

LOOKAHEAD = 1.0  # seconds: one beat tick; claimed early, polls wait in the worker until they are due
# The server ids of this process's last full claim, which gave each a next-due time: while the registry and the
# due set's size are unchanged, only the due ones are sent to the claim (2,500 servers' arguments every second).
_scheduled: list[int] = []

# KEYS[1] = the due set; ARGV = now, horizon, first polls a second, then (id, interval, fraction) per server.
CLAIM_LUA = """
local now, horizon, rate = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local due = {}
local scores, new = {}, 0
for i = 4, #ARGV, 3 do
  scores[i] = redis.call('ZSCORE', KEYS[1], ARGV[i])
  if not scores[i] then new = new + 1 end
end
for i = 4, #ARGV, 3 do
  local id, interval, fraction = ARGV[i], tonumber(ARGV[i + 1]), tonumber(ARGV[i + 2])
  local score = scores[i]
  if not score then
    redis.call('ZADD', KEYS[1], now + fraction * math.max(math.min(interval, FIRST_SPREAD_S), new / rate), id)
  else
    score = tonumber(score)
    if score <= horizon then
      local slots = math.max(0, math.floor((now - score) / interval))
      local due_at = score + slots * interval
      redis.call('ZADD', KEYS[1], due_at + interval, id)
      table.insert(due, id)
      table.insert(due, tostring(due_at))
    end
  end
end
return due
""".replace("FIRST_SPREAD_S", str(FIRST_SPREAD_S))


def first_poll_within(interval: int) -> int:
    """Seconds after it is added by which a new server is first polled (unless a whole fleet arrives at once)."""
    return min(interval, FIRST_SPREAD_S)


def first_fraction(server_id: int) -> float:
    """Where in the first-poll window a new server falls: consecutive ids land evenly apart."""
    return (server_id * GOLDEN) % 1.0


def claim_due(servers: list[tuple[int, int]], now: float, lookahead: float = LOOKAHEAD) -> list[tuple[int, float]]:
    """(server id, poll interval) of the enabled servers -> [(id, due_at)] due before the next tick.

    A 1 s beat would otherwise start polls up to 1 s late (0.5 s on average).
    """
    global _scheduled
    client = state.client()
    ids = [server_id for server_id, _ in servers]
    size = forget_removed(client, {str(server_id) for server_id in ids})
    if not servers:
        return []
    if ids == _scheduled and size == len(ids):  # every one has its next-due time: only the due go to the claim
        due_now = due_before(client, now + lookahead)
        servers = [(server_id, interval) for server_id, interval in servers if server_id in due_now]
        if not servers:
            return []
    else:
        _scheduled = ids  # the claim below gives each a next-due time
    args = [repr(now), repr(now + lookahead), str(FIRST_POLLS_PER_SECOND)]
    for server_id, interval in servers:
        args += [str(server_id), str(interval), repr(first_fraction(server_id))]
    reply = client.eval(CLAIM_LUA, 1, DUE_KEY, *args)
    return [(int(reply[i]), float(reply[i + 1])) for i in range(0, len(reply), 2)]


def due_before(client, horizon: float) -> set[int]:
    """The ids whose next-due time is at or before horizon."""
    return {int(member) for member in client.zrangebyscore(DUE_KEY, "-inf", horizon)}


def forget_removed(client, enabled: set[str]) -> int:
    """Drop deleted or disabled servers from the due set (cheap check first); how many it holds then."""
    size = client.zcard(DUE_KEY)
    if size <= len(enabled):
        return size
    stale = [m for m in client.zrange(DUE_KEY, 0, -1) if m.decode() not in enabled]
    if stale:
        client.zrem(DUE_KEY, *stale)
    return size - len(stale)


def in_turn(server_id: int, source: str, every: float, poll_interval: int, slot_at: float) -> bool:
    """Whether the poll due at slot_at is this server's turn for a source read every `every` seconds.

    Turns are spread by server and source, so in any poll interval about one in
    every/poll_interval servers reads it. Counted from each server's first poll (which
    reads every source), the slower sources of a fleet started together came due in the
    same interval again a minute later, and every minute after: a lag spike each time.
    """
    polls = max(1, round(every / poll_interval))
    slot = round(slot_at / poll_interval)
    return slot % polls == spread(server_id, source) % polls


@lru_cache(maxsize=65536)  # each server's slower sources asked every poll: the text and its CRC made once
def spread(server_id: int, source: str) -> int:
    return zlib.crc32(f"{server_id}:{source}".encode())


# (server id, source) whose last reading found nothing there (Reading.quiet): kept by this process
# only, so a worker that has not read a server yet reads its sources at their usual interval.
QUIET: set[tuple[int, str]] = set()


def note_quiet(server_id: int, source: str, quiet: bool) -> None:
    if quiet:
        QUIET.add((server_id, source))
    else:
        QUIET.discard((server_id, source))


def is_quiet(server_id: int, source: str) -> bool:
    return (server_id, source) in QUIET


def reset() -> None:
    state.client().delete(DUE_KEY)
    QUIET.clear()
