"""InnoDB mutex waits at the poll interval where they come from performance_schema (MariaDB 10.6+), 60 s elsewhere."""

import time

from collectors import registry
from collectors.batch import poll_server
from collectors.poll import due_sources
from collectors.pool import Target


def target(flavor: str, version: tuple[int, int, int]) -> Target:
    return Target(1, "t", "127.0.0.1", 3306, "", "steady", "pw", flavor=flavor, version=version)


def due_after(seconds: float, server: Target, poll_interval: int = 10) -> set[str]:
    now = time.time()
    attempts = {"innodb_mutex": now - seconds, "global_status": now - seconds}
    return {s.name for s in due_sources(poll_interval, attempts, now, target=server)}


def test_show_engine_innodb_mutex_stays_at_60_s_where_it_walks_every_latch():
    mutex = registry.get("innodb_mutex")
    for flavor, version in (("mysql", (8, 0, 36)), ("mysql", (5, 7, 44)), ("mariadb", (10, 5, 22))):
        assert mutex.interval_for(10, flavor, version) == 60
        # When it is read within those 60 s is the server's turn (schedule.in_turn): at the latest one poll late.
        assert "innodb_mutex" in due_after(70, target(flavor, version))
        assert "global_status" in due_after(10, target(flavor, version))


def test_mariadb_106_and_later_read_mutex_waits_every_poll():
    for version in ((10, 6, 0), (10, 11, 6), (11, 4, 2)):
        assert "innodb_mutex" in due_after(10, target("mariadb", version))


def test_a_60_s_run_on_the_test_mariadb_gets_a_mutex_point_per_poll(make_server, mariadb, load):
    server = make_server("mutex-every-poll", mariadb.port, poll_interval=1)
    intervals = []
    for _ in range(3):
        load.transactions(commits=20)
        result = poll_server(server.id)  # every due source, as the dispatcher polls
        outcome = next((s for s in result.sources if s.name == "innodb_mutex"), None)
        assert outcome is not None and outcome.ok, "innodb_mutex was not due at the 1 s poll interval"
        intervals.append(outcome.sample.interval if outcome.sample else None)
        time.sleep(1.05)
    assert intervals[0] is None and all(i is not None and i < 5 for i in intervals[1:])
