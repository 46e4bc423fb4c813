"""The delta engine's shaped path: a server's readings of one set of names reuse the shape its last snapshot
kept (counters and gauges taken by C passes); every figure is what the engine computed name by name."""

from collectors.delta import Snapshot, compute
from collectors.source import Reading

TABLE_WAITS = ("wait.count:wait/io/table/",)


def status(**values) -> Reading:
    counters = frozenset(k for k in values if k not in ("Threads_running", "Uptime"))
    return Reading(values, counters, reset_markers=("Uptime",), aliases={"tps": ("trx", "Com_commit")})


def waits(**values) -> Reading:
    named = {f"wait.count:{name}": value for name, value in values.items()}
    return Reading(named, frozenset(named), absent_is_zero=True, reset_together=True, resets_alone=TABLE_WAITS)


def test_the_first_reading_keeps_gauges_and_a_baseline_of_counters_and_markers():
    change, snapshot = compute(None, status(Com_commit=10, Com_select=7, Threads_running=3, Uptime=50), 100.0, 1.0)
    assert change.values == {"Threads_running": 3, "Uptime": 50}
    assert change.interval is None and change.reset == "first reading: baseline kept"
    assert snapshot.values == {"Com_commit": 10, "Com_select": 7, "Uptime": 50}
    assert snapshot.shape is not None and snapshot.shape.gauge_names == ("Threads_running", "Uptime")


def test_a_poll_of_the_same_names_reuses_the_shape_and_gives_each_delta():
    _, first = compute(None, status(Com_commit=10, Com_select=7, Threads_running=3, Uptime=50), 100.0, 1.0)
    change, second = compute(first, status(Com_commit=25, Com_select=7, Threads_running=4, Uptime=60), 110.0, 1.0)
    assert second.shape is first.shape
    # 25 - 10 = 15 commits, 7 - 7 = 0 selects; tps is Com_commit's (no trx counter in this reading)
    assert change.values == {"Threads_running": 4, "Uptime": 60, "Com_commit": 15, "Com_select": 0, "tps": 15}
    assert change.counters == {"Com_commit", "Com_select", "tps"} and change.interval == 10.0
    assert second.values == {"Com_commit": 25, "Com_select": 7, "Uptime": 60}


def test_a_counter_that_went_down_alone_is_dropped_on_the_shaped_path():
    _, first = compute(None, status(Com_commit=1000, Com_select=50, Uptime=100), 100.0, 0.0)
    change, second = compute(first, status(Com_commit=3, Com_select=60, Uptime=110), 110.0, 0.0)
    assert second.shape is first.shape
    assert change.values == {"Uptime": 110, "Com_select": 10}  # no tps either: its basis has no delta
    assert change.counters == {"Com_select"}
    assert change.dropped == "went down, so no delta this interval: Com_commit (1000 -> 3)"


def test_uptime_going_down_resets_every_counter_on_the_shaped_path():
    _, first = compute(None, status(Com_commit=5, Uptime=1000), 100.0, 0.0)
    change, _ = compute(first, status(Com_commit=50, Uptime=3), 110.0, 0.0)
    assert change.values == {"Uptime": 3} and change.counters == frozenset()
    assert change.reset == "Uptime went down (1000 -> 3): restart or FLUSH STATUS"


def test_a_new_counter_sets_only_its_baseline_and_the_next_poll_counts_it():
    _, first = compute(None, status(Com_commit=10, Uptime=50), 100.0, 0.0)
    change, second = compute(first, status(Com_commit=12, Com_select=900, Uptime=60), 110.0, 0.0)
    assert change.values == {"Uptime": 60, "Com_commit": 2, "tps": 2}
    assert second.shape is not first.shape and second.values == {"Com_commit": 12, "Com_select": 900, "Uptime": 60}
    change, third = compute(second, status(Com_commit=13, Com_select=940, Uptime=70), 120.0, 0.0)
    assert third.shape is second.shape
    assert change.values == {"Uptime": 70, "Com_commit": 1, "Com_select": 40, "tps": 1}


def test_an_absent_wait_event_counts_from_zero_and_a_vanished_one_is_a_truncate():
    _, first = compute(None, waits(a=5, b=20), 100.0, 0.0)
    change, second = compute(first, waits(a=7, b=20), 110.0, 0.0)
    assert second.shape is first.shape and change.values == {"wait.count:a": 2, "wait.count:b": 0}
    change, third = compute(second, waits(a=9, b=21, new=3), 120.0, 0.0)  # new: absent before, so 0 then
    assert change.values == {"wait.count:a": 2, "wait.count:b": 1, "wait.count:new": 3}
    change, _ = compute(third, waits(b=900, new=4), 130.0, 0.0)  # a vanished: zeroed
    assert change.interval is None and change.values == {}
    assert change.reset == ("wait.count:a went down (9 -> 0): counters were reset (FLUSH STATUS, TRUNCATE, restart)")


def test_a_vanished_event_is_a_truncate_where_prev_had_as_many_names_as_the_reading():
    # prev: a, b; now: b, c (as many names, one vanished): a's 9 -> 0 is a reset, c alone would not be.
    _, first = compute(None, waits(a=9, b=20), 100.0, 0.0)
    change, _ = compute(first, waits(b=25, c=1), 110.0, 0.0)
    assert change.interval is None and change.reset.startswith("wait.count:a went down (9 -> 0)")


def test_a_table_wait_that_went_down_loses_only_its_delta():
    _, first = compute(None, waits(**{"wait/io/table/sql/handler": 500, "x": 10}), 100.0, 0.0)
    change, _ = compute(first, waits(**{"wait/io/table/sql/handler": 100, "x": 14}), 110.0, 0.0)
    assert change.interval == 10.0 and change.values == {"wait.count:x": 4}
    assert change.dropped == ("went down, so no delta this interval: wait.count:wait/io/table/sql/handler "
                              "(500 -> 100)")


def test_a_snapshot_read_back_from_redis_gives_the_same_deltas_and_a_shape_again():
    _, first = compute(None, waits(a=2**64 - 1, b=20), 100.0, 0.0)
    back = Snapshot.loads(first.dumps())
    assert back.shape is None and back == first
    change, second = compute(back, waits(a=2**64 + 12345, b=26), 110.0, 0.0)
    assert change.values == {"wait.count:a": 12346, "wait.count:b": 6} and second.shape is not None


def holders(**values) -> Reading:
    return Reading(values, frozenset(), extra={"holder": None})


def test_a_reading_of_gauges_alone_gives_its_values_and_says_a_restart():
    change, first = compute(None, holders(trx_oldest_age_s=4, trx_older_60s=0), 100.0, 50.0)
    assert change.values == {"trx_oldest_age_s": 4, "trx_older_60s": 0} and change.interval is None
    assert change.reset == "first reading: baseline kept" and first.values == {}
    change, second = compute(first, holders(trx_oldest_age_s=14, trx_older_60s=1), 110.0, 50.0)
    assert (change.values, change.counters, change.interval, change.reset) == (
        {"trx_oldest_age_s": 14, "trx_older_60s": 1}, frozenset(), 10.0, "")
    assert second.shape is first.shape and second.values == {} and (second.ts, second.boot) == (110.0, 50.0)
    # booted at 115, after the previous reading (110): a restart, the gauges still stored
    change, _ = compute(second, holders(trx_oldest_age_s=0, trx_older_60s=0), 120.0, 115.0)
    assert (change.values, change.interval, change.reset) == ({"trx_oldest_age_s": 0, "trx_older_60s": 0}, None,
                                                               "server restarted: counters start again from zero")


def test_gauges_alone_get_their_derived_gauges_of_the_interval():
    def per_second(deltas, interval):
        return {"polls_per_s": 1 / interval}
    reading = Reading({"level": 3}, frozenset(), derive=per_second)
    _, first = compute(None, reading, 100.0, None)
    change, _ = compute(first, reading, 104.0, None)
    assert change.values == {"level": 3, "polls_per_s": 0.25} and change.interval == 4.0


def test_gauges_alone_after_a_reading_with_counters_still_see_those_vanish():
    # prev held a counter (9) the reading no longer has: zeroed where absent means zero, so a reset.
    _, first = compute(None, waits(a=9), 100.0, 0.0)
    change, _ = compute(first, Reading({"level": 1}, frozenset(), absent_is_zero=True, reset_together=True),
                        110.0, 0.0)
    assert change.interval is None and change.reset.startswith("wait.count:a went down (9 -> 0)")
    assert change.values == {"level": 1}
