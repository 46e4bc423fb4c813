"""The delta engine: deltas with intervals, gauges as values, resets without negative deltas or spikes."""

from collectors.delta import Snapshot, compute
from collectors.source import Reading

BIG_PS = 2**64 + 12345  # picosecond sums outgrow 64 bits: Python ints keep them exact


def status(**values) -> Reading:
    counters = frozenset(k for k in values if k not in ("Threads_running", "Uptime"))
    return Reading(values, counters, reset_markers=("Uptime",))


def first(reading: Reading, ts: float = 100.0, boot: float = 0.0) -> Snapshot:
    return compute(None, reading, ts, boot)[1]


def test_it_turns_counters_into_deltas_with_the_interval():
    prev = first(status(Com_commit=10, Threads_running=3, Uptime=100))
    change, _ = compute(prev, status(Com_commit=25, Threads_running=7, Uptime=110), 110.0, 0.0)
    assert change.values == {"Com_commit": 15, "Threads_running": 7, "Uptime": 110}
    assert change.counters == {"Com_commit"}
    assert change.interval == 10.0


def test_it_keeps_only_gauges_on_the_first_reading():
    change, snapshot = compute(None, status(Com_commit=10, Threads_running=3, Uptime=5), 100.0, 0.0)
    assert change.values == {"Threads_running": 3, "Uptime": 5}
    assert change.interval is None and change.counters == frozenset()
    assert snapshot.values == {"Com_commit": 10, "Uptime": 5}


def test_it_sums_picoseconds_in_python_ints():
    reading = Reading({"wait.time_ps:x": BIG_PS}, frozenset({"wait.time_ps:x"}))
    prev = first(Reading({"wait.time_ps:x": 2**64 - 1}, frozenset({"wait.time_ps:x"})))
    change, _ = compute(Snapshot.loads(prev.dumps()), reading, 110.0, 0.0)
    assert change.values["wait.time_ps:x"] == 12346
    assert isinstance(change.values["wait.time_ps:x"], int)


def test_a_value_that_was_no_number_sets_no_baseline_when_read_back():
    # A status text "nan" reads as a float NaN: saved and read back it leaves that counter without a
    # baseline (its next reading starts one), while the others keep theirs.
    prev = first(status(Com_commit=10, Innodb_x=float("nan"), Uptime=100))
    change, _ = compute(Snapshot.loads(prev.dumps()), status(Com_commit=25, Innodb_x=7, Uptime=110), 110.0, 0.0)
    assert change.values == {"Com_commit": 15, "Uptime": 110}


def test_a_counter_that_went_down_loses_only_its_own_delta():
    prev = first(status(Com_commit=1000, Com_select=50, Uptime=100))
    change, snapshot = compute(prev, status(Com_commit=3, Com_select=60, Uptime=110), 110.0, 0.0)
    assert change.interval == 10.0 and change.reset == ""
    assert change.values == {"Com_select": 10, "Uptime": 110} and change.counters == {"Com_select"}
    assert "Com_commit (1000 -> 3)" in change.dropped
    assert snapshot.values["Com_commit"] == 3  # the new baseline
    after, _ = compute(snapshot, status(Com_commit=8, Com_select=61, Uptime=120), 120.0, 0.0)
    assert after.values["Com_commit"] == 5 and after.interval == 10.0


def alias_reading(**values) -> Reading:
    return Reading(values, frozenset(values), aliases={"tps": ("summary", "explicit")})


def test_an_alias_is_the_delta_of_the_first_choice_the_reading_counts_by():
    prev = first(alias_reading(explicit=10))
    change, snapshot = compute(prev, alias_reading(explicit=12), 110.0, 0.0)
    assert change.values == {"explicit": 2, "tps": 2}  # summary off: the reading counts by explicit
    change, snapshot = compute(snapshot, alias_reading(summary=5000, explicit=15), 120.0, 0.0)
    # summary just turned on: the reading counts by it, and it has no delta yet: no tps, not explicit's 3
    assert change.values == {"explicit": 3}
    change, _ = compute(snapshot, alias_reading(summary=5400, explicit=16), 130.0, 0.0)
    assert change.values == {"summary": 400, "explicit": 1, "tps": 400} and "tps" in change.counters


def test_an_alias_whose_counter_went_down_has_no_delta_this_interval():
    prev = first(alias_reading(summary=60, explicit=100))
    change, _ = compute(prev, alias_reading(summary=8, explicit=113), 110.0, 0.0)  # TRUNCATE of the summary
    assert "tps" not in change.values and change.values["explicit"] == 13


def test_uptime_going_down_is_a_restart_even_if_counters_grew():
    prev = first(status(Com_commit=5, Uptime=1000))
    change, _ = compute(prev, status(Com_commit=50, Uptime=3), 110.0, 0.0)
    assert change.interval is None and "Uptime went down" in change.reset


def test_a_new_boot_time_is_a_restart_for_every_source():
    reading = Reading({"wait.count:x": 10}, frozenset({"wait.count:x"}), absent_is_zero=True)
    prev = first(Reading({"wait.count:x": 5}, frozenset({"wait.count:x"})), boot=1000.0)
    change, _ = compute(prev, reading, 200.0, boot=1100.0)
    assert change.interval is None and "restarted" in change.reset


def test_a_truncated_summary_table_is_a_reset():
    before = {"wait.count:a": 500, "wait.count:b": 20}
    prev = first(Reading(before, frozenset(before), absent_is_zero=True, reset_together=True))
    after = {"wait.count:b": 900}  # a vanished (back to 0); b happens to be higher than before
    change, _ = compute(prev, Reading(after, frozenset(after), absent_is_zero=True, reset_together=True),
                        110.0, 0.0)
    assert change.interval is None and "wait.count:a went down" in change.reset


def test_an_event_seen_for_the_first_time_counts_from_zero():
    prev = first(Reading({"wait.count:a": 5}, frozenset({"wait.count:a"}), absent_is_zero=True))
    now = {"wait.count:a": 7, "wait.count:new": 3}
    change, _ = compute(prev, Reading(now, frozenset(now), absent_is_zero=True), 110.0, 0.0)
    assert change.values == {"wait.count:a": 2, "wait.count:new": 3}


def test_a_newly_enabled_counter_only_sets_its_baseline():
    prev = first(Reading({"innodb_metrics:a": 5}, frozenset({"innodb_metrics:a"})))
    now = {"innodb_metrics:a": 9, "innodb_metrics:purge_invoked": 4000}
    change, _ = compute(prev, Reading(now, frozenset(now)), 110.0, 0.0)
    assert change.values == {"innodb_metrics:a": 4}


def test_variables_are_stored_on_change_only():
    reading = Reading({"var:innodb_max_purge_lag": 0, "var:max_connections": 151}, stored_on_change=True)
    change, snapshot = compute(None, reading, 100.0, 0.0)
    assert change.values == reading.values
    same, snapshot = compute(snapshot, reading, 160.0, 0.0)
    assert same.values == {}
    changed = Reading({"var:innodb_max_purge_lag": 400000, "var:max_connections": 151}, stored_on_change=True)
    delta, _ = compute(snapshot, changed, 220.0, 0.0)
    assert delta.values == {"var:innodb_max_purge_lag": 400000}


def test_a_boot_time_read_late_is_no_restart():
    # Up since epoch 0, read at 100 s (Uptime 100). The next statement ran at 110 s (Uptime 110) and its answer was
    # read at 114.9 s (a starved worker, as seen live): boot 114.9 - 110 = 4.9 s moved by more than the slack,
    # but stays long before the previous reading (100 s): the server did not start since. Com_commit 10 -> 25.
    prev = first(status(Com_commit=10, Uptime=100), ts=100.0, boot=0.0)
    change, _ = compute(prev, status(Com_commit=25, Uptime=110), 114.9, boot=4.9)
    assert change.reset == "" and change.values["Com_commit"] == 15  # before: no delta, "server restarted"


def test_a_boot_time_after_the_previous_reading_is_a_restart():
    # Down from 100 s, started again at 150 s and read at 400 s: Uptime 250 grew past 100, only the boot told.
    prev = first(status(Com_commit=10, Uptime=100), ts=100.0, boot=0.0)
    change, _ = compute(prev, status(Com_commit=3, Uptime=250), 400.0, boot=150.0)
    assert change.reset == "server restarted: counters start again from zero"
