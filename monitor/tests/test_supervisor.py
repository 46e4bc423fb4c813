"""The supervised group: restarts with a doubling backoff, and a crash loop mailed once (real processes, real SMTP)."""

import time

from monitor.management.commands.up import crash_loop_mail
from monitor.runtime.supervisor import Child, Daemon, Group, Policy

POLICY = Policy(first_delay=0.2, longest_delay=0.8, stable_after=60, loop_crashes=4, loop_window=60)


def watch_for(group: Group, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        group.watch()
        time.sleep(0.02)


def test_a_crash_loop_is_mailed_once_and_the_restarts_go_on(inbox):
    lines: list[str] = []
    crasher = Child("crasher", ["sh", "-c", "exit 3"])
    group = Group([crasher], log=lines.append, policy=POLICY, on_crash_loop=crash_loop_mail)
    group.start()
    try:
        # Delays 0.2, 0.4, 0.8, 0.8, ... s: the 4th crash (after about 1.4 s of waiting) is a loop.
        watch_for(group, 6)
    finally:
        group.stop(timeout=2)
    waits = [line.split("restarting it in ")[1].split(" s")[0] for line in lines if "restarting it in" in line]
    assert waits[:4] == ["0", "0", "1", "1"]  # printed rounded: 0.2, 0.4, 0.8, 0.8
    assert len(waits) >= 6, lines  # it went on restarting after the loop was reported
    assert sum("up: restarted crasher (pid" in line for line in lines) >= 5
    assert inbox.subjects() == ["[SteadyState] crasher keeps crashing"]  # once, not once per crash
    assert "crasher crashed 4 times within 1 minutes (last: it exited with code 3)" in inbox.text(0)
    assert inbox.messages[0]["To"] == "oncall@example.com"


def test_a_unit_that_ran_long_enough_starts_over_from_the_first_delay():
    alive = {"value": True}
    lines: list[str] = []
    group = Group([Daemon("thing", lambda: alive["value"], lambda: alive.update(value=True))], log=lines.append,
                  policy=Policy(first_delay=1, longest_delay=8, stable_after=10, loop_crashes=99))
    group.start()
    t0 = time.monotonic()  # the group's clock, driven by hand from here
    alive["value"] = False
    group.watch(t0 + 1)  # dies: back in 1 s
    group.watch(t0 + 2)  # restarted
    alive["value"] = False
    group.watch(t0 + 3)  # dies again 1 s later: back in 2 s
    group.watch(t0 + 5)  # restarted ...
    group.watch(t0 + 20)  # ... and ran 15 s: stable
    alive["value"] = False
    group.watch(t0 + 21)
    assert [line for line in lines if "restarting" in line] == [
        "up: thing is not running any more: restarting it in 1 s (1 crash(es) in the last 5 min)",
        "up: thing is not running any more: restarting it in 2 s (2 crash(es) in the last 5 min)",
        "up: thing is not running any more: restarting it in 1 s (3 crash(es) in the last 5 min)"]
    assert lines.count("up: restarted thing") == 2
