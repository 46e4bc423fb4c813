"""The slower sources are spread over the fleet after the first poll (which reads them all), not all due
in the same interval every minute."""

from collections import Counter

from collectors import registry, state
from collectors.poll import due_sources
from collectors.pool import Target
from collectors.schedule import DUE_KEY, FIRST_POLLS_PER_SECOND, claim_due, in_turn

INTERVAL = 10
FLEET = range(1, 601)
SLOW = [s.name for s in registry.all_sources() if s.interval_for(INTERVAL) > INTERVAL]


def server(server_id: int) -> Target:
    """A server of unknown flavor (not yet detected): innodb_mutex counts as the 60 s statement."""
    return Target(server_id, f"db{server_id}", "127.0.0.1", 3306, "", "steady", "pw")


def simulate(polls: int, skip: frozenset[tuple[int, int]] = frozenset()) -> list[Counter]:
    """Per poll slot, how many servers read each source; every server polled at 10 s from t0 (a due slot)."""
    attempts: dict[int, dict[str, float]] = {sid: {} for sid in FLEET}
    per_slot = []
    for k in range(polls):
        now = 1_000_000.0 + k * INTERVAL
        counts: Counter[str] = Counter()
        for sid in FLEET:
            if (sid, k) in skip:
                continue
            for source in due_sources(INTERVAL, attempts[sid], now, target=server(sid), slot_at=now):
                counts[source.name] += 1
                attempts[sid][source.name] = now + 0.05  # the poll took 50 ms
        per_slot.append(counts)
    return per_slot


def test_every_poll_after_the_first_reads_a_sixth_of_the_fleets_slow_sources():
    assert SLOW  # innodb_mutex, innodb_metrics and variables run every 60 s
    first, *slots = simulate(polls=19)
    assert all(first[name] == len(FLEET) for name in SLOW)  # the first poll reads everything
    for counts in slots:
        assert counts["global_status"] == len(FLEET)
        for name in SLOW:
            assert 60 <= counts[name] <= 140, (name, counts[name])  # 600 / 6 = 100 expected
    # Over any 6 consecutive polls each server read each slow source exactly once: 600 reads.
    for start in range(0, len(slots) - 5):
        for name in SLOW:
            assert sum(c[name] for c in slots[start:start + 6]) == len(FLEET)


def mutex_due(attempts: dict, k: int, server_id: int = 7) -> bool:
    now = 1_000_000.0 + k * INTERVAL
    return any(s.name == "innodb_mutex" for s in due_sources(INTERVAL, attempts, now, target=server(server_id),
                                                                slot_at=now))


def test_a_missed_turn_is_made_up_at_the_next_poll():
    turn = next(k for k in range(6) if in_turn(7, "innodb_mutex", 60, INTERVAL, 1_000_000.0 + k * INTERVAL))
    attempts = {"innodb_mutex": 1_000_000.0 + turn * INTERVAL}
    assert [mutex_due(attempts, k) for k in range(turn + 1, turn + 7)] == [False] * 5 + [True]
    # The poll of its next turn was lost (say its worker was killed): the one after reads it.
    assert mutex_due(attempts, turn + 7)
    attempts["innodb_mutex"] = 1_000_000.0 + (turn + 7) * INTERVAL
    # Then back on its turn, so it stays spread with the rest of the fleet.
    assert [mutex_due(attempts, k) for k in range(turn + 8, turn + 13)] == [False] * 4 + [True]


def test_a_fleet_registered_at_once_has_its_first_polls_spread_at_the_first_poll_rate(db):
    fleet = [(sid, INTERVAL) for sid in range(1, 1001)]
    start = 2_000_000.0
    claim_due(fleet, start)  # registers them all
    due = sorted(first_due(sid) for sid, _ in fleet)
    window = len(fleet) / FIRST_POLLS_PER_SECOND  # 25 s: longer than the interval
    per_second = Counter(int(at - start) for at in due)
    assert start <= due[0] and due[-1] < start + window and due[-1] > start + INTERVAL
    assert max(per_second.values()) <= FIRST_POLLS_PER_SECOND * 1.2  # evenly, not bunched


def test_a_server_added_alone_is_first_polled_within_its_interval(db):
    claim_due([(7, INTERVAL)], 3_000_000.0)
    assert 3_000_000.0 <= first_due(7) < 3_000_000.0 + INTERVAL


def first_due(server_id: int) -> float:
    due = state.client().zscore(DUE_KEY, str(server_id))
    assert due is not None, f"server {server_id} is not scheduled"
    return due
