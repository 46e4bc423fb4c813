"""The worker's poll pool: a poll claimed early waits for its due time without holding a pool thread."""

import time
from datetime import UTC, datetime

from collectors.due_pool import DuePool


def at(seconds_from_now: float) -> datetime:
    return datetime.fromtimestamp(time.time() + seconds_from_now, UTC)


def test_it_leaves_the_only_thread_to_a_poll_due_now_while_another_waits():
    pool = DuePool(1)
    later = pool.submit(at(30), time.time)
    now = pool.submit(at(-1), time.time)
    assert now.result(timeout=20) is not None  # with the thread asleep until the first is due, 30 s away
    assert not later.done()
    later.cancel()


def test_it_starts_no_call_before_its_due_time_and_keeps_their_order():
    pool = DuePool(1)
    due = [at(0.6), at(0.3), None]
    futures = [pool.submit(d, time.time) for d in due]
    started = [f.result(timeout=20) for f in futures]
    assert started[0] >= due[0].timestamp()
    assert started[1] >= due[1].timestamp()
    assert started[2] < started[1] < started[0]


def test_it_hands_a_call_s_exception_to_its_caller():
    def fails():
        raise ValueError("the collector failed")

    future = DuePool(2).submit(at(0.1), fails)
    assert isinstance(future.exception(timeout=20), ValueError)


def test_a_call_that_cannot_be_started_fails_instead_of_waiting_forever():
    pool = DuePool(1)
    pool.pool.shutdown()  # as at the worker's exit
    future = pool.submit(at(0.1), time.time)
    assert isinstance(future.exception(timeout=10), RuntimeError)
