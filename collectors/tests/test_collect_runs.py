"""A collection file's run marks paired into runs: a resumed collection's run is a run of its own."""

from collectors.collect_runs import MarkSeen, runs_of

T0 = 1767607200.0  # 2026-01-05 10:00:00 UTC


def start(at: float, name: str, collection: int = 0, last_poll: float | None = None, **extra) -> MarkSeen:
    return MarkSeen({"type": "mark", "at": T0 + at, "run_start": name, **extra}, last_poll, collection)


def end(at: float, name: str, collection: int = 0, **extra) -> MarkSeen:
    return MarkSeen({"type": "mark", "at": T0 + at, "run_end": name, **extra}, None, collection)


def spans(marks: list[MarkSeen]) -> list[tuple]:
    return [(r.name, r.start - T0, None if r.end is None else r.end - T0, r.fields) for r in runs_of(marks)]


def test_a_collection_stopped_and_resumed_with_the_same_run_makes_two_runs():
    marks = [start(0, "nightly"), end(130, "nightly"), start(1660, "nightly", collection=1, resumed=True),
             end(1690, "nightly", collection=1)]
    assert spans(marks) == [("nightly", 0, 130, {}),
                            ("nightly (resumed 2026-01-05 10:27:40 UTC)", 1660, 1690, {})]


def test_a_killed_collections_run_ends_at_its_last_poll_when_the_next_one_resumes_it():
    marks = [start(0, "nightly"), start(900, "nightly", collection=1, last_poll=T0 + 55, resumed=True)]
    assert spans(marks) == [("nightly", 0, 55, {}), ("nightly (resumed 2026-01-05 10:15:00 UTC)", 900, None, {})]


def test_a_start_restated_while_the_run_is_open_is_the_same_run_and_one_after_its_end_another():
    marks = [start(0, "rw", fields={"concurrency": 8}), start(5, "rw", fields={"notes": "retry"}),
             end(60, "rw"), end(61, "rw", fields={"tool_summary": "tps 812"}), start(100, "rw"), end(160, "rw")]
    assert spans(marks) == [("rw", 0, 61, {"concurrency": 8, "notes": "retry", "tool_summary": "tps 812"}),
                            ("rw (started 2026-01-05 10:01:40 UTC)", 100, 160, {})]


def test_an_end_without_a_start_ends_nothing_and_a_long_name_keeps_its_time():
    name = "x" * 200
    marks = [end(1, "orphan"), start(0, name), end(10, name), start(20, name, collection=1)]
    found = runs_of(marks)
    assert [len(r.name) for r in found] == [200, 200] and found[1].name.endswith("(resumed 2026-01-05 10:00:20 UTC)")
