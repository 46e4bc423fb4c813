"""Faults: each failing server says why, per source; the healthy server in the same dispatch is still polled."""

import socket
import threading
import time

import pytest

from collectors import schedule, state
from collectors.batch import lock_ttl, poll_server
from collectors.models import ServerHealth
from collectors.status import CONNECTION_LOST, is_failing
from collectors.tasks import dispatch_due_polls
from monitor.celery import app as celery_app
from testing.mariadb import free_port, running_sandbox


@pytest.fixture(scope="module")
def mariadb_without_pfs():
    """A second MariaDB with performance_schema OFF: the session fixture stays as it is."""
    with running_sandbox("steadystate-nopfs-", performance_schema=False) as server:
        yield server


@pytest.fixture
def silent_listener():
    """Accepts TCP connections and never says a word (a hung server)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    held, stop = [], threading.Event()

    def accept():
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield listener.getsockname()[1]
    stop.set()
    thread.join()
    for conn in held:
        conn.close()
    listener.close()


@pytest.fixture
def relay(mariadb):
    """A TCP relay to the suite's MariaDB that the test can cut: the server going away under a pooled connection."""
    listener = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []

    def pipe(src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass

    def accept():
        while True:
            try:
                client = listener.accept()[0]
            except OSError:
                return  # cut
            upstream = socket.create_connection(("127.0.0.1", mariadb.port))
            held.extend((client, upstream))
            for src, dst in ((client, upstream), (upstream, client)):
                threading.Thread(target=pipe, args=(src, dst), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()

    def cut() -> None:
        listener.shutdown(socket.SHUT_RDWR)  # wakes the accept: a close alone leaves the port listening
        listener.close()
        for conn in held:
            conn.shutdown(socket.SHUT_RDWR)
            conn.close()

    yield listener.getsockname()[1], cut
    if listener.fileno() != -1:
        cut()


@pytest.fixture
def eager_celery():
    celery_app.conf.task_always_eager = True
    yield
    celery_app.conf.task_always_eager = False


def dispatch_all_now() -> int:
    """The beat tick: a tick an interval ago registered the servers, this one finds them all due."""
    dispatch_due_polls(now=time.time() - 11)
    return dispatch_due_polls()


def test_a_bad_server_never_stops_the_healthy_one(eager_celery, make_server, mariadb, mariadb_without_pfs,
                                                   silent_listener):
    healthy = make_server("healthy", mariadb.port)
    wrong_password = make_server("wrong-password", mariadb.port, password="not-it")
    unreachable = make_server("unreachable", free_port())
    hung = make_server("hung", silent_listener)
    no_pfs = make_server("no-pfs", mariadb_without_pfs.port)

    assert dispatch_all_now() == 5

    health = {h.server.name: h for h in ServerHealth.objects.select_related("server")}
    assert health[healthy.name].consecutive_failures == 0 and health[healthy.name].last_error == ""
    # Every source ran, but those of another flavor (redo_log: MySQL's), which say so.
    assert all(entry["ok"] or "not available on MariaDB" in entry["error"]
               for entry in health[healthy.name].sources.values())

    assert "wrong-password" in health["wrong-password"].last_error
    assert "access denied for user 'steady'" in health["wrong-password"].last_error
    assert "cannot connect" in health["unreachable"].last_error
    assert "timed out" in health["hung"].last_error
    for bad in (wrong_password, unreachable, hung):
        assert health[bad.name].consecutive_failures == 1 and health[bad.name].last_success_at is None
        assert not any(entry["ok"] for entry in health[bad.name].sources.values())

    sources = health[no_pfs.name].sources
    assert health[no_pfs.name].consecutive_failures == 0  # the other sources worked
    assert sources["global_status"]["ok"] and sources["history_length"]["ok"]
    for name in ("pfs_waits", "innodb_mutex"):
        assert not sources[name]["ok"] and sources[name]["status"] == "off"
        assert "performance_schema is OFF" in sources[name]["error"] and "no-pfs" in sources[name]["error"]


def test_a_server_lost_under_its_pooled_connection_is_no_failing_source(make_server, relay):
    port, cut = relay
    server = make_server("lost-mid-poll", port)
    assert poll_server(server.id, only=["global_status"]).ok  # the connection is pooled
    cut()  # the server goes away: the pooled connection breaks and a new one is refused
    result = poll_server(server.id, only=["global_status", "history_length"])
    assert not result.ok
    # The unreachable rule speaks for a lost connection; the source alert would be a second mail for it.
    assert {s.name: s.status for s in result.sources} == {"global_status": CONNECTION_LOST,
                                                          "history_length": CONNECTION_LOST}
    assert "reconnect failed" in result.sources[0].error
    health = ServerHealth.objects.get(server=server)
    assert not any(is_failing(state) for state in health.sources.values())


def test_a_server_is_never_polled_twice_at_once(server):
    token = state.acquire_lock(server.id, lock_ttl(server.poll_interval))
    try:
        result = poll_server(server.id)
    finally:
        state.release_lock(server.id, token)
    assert result.skipped and not result.sources
    assert not ServerHealth.objects.filter(server=server).exists()
    assert not poll_server(server.id).skipped


def test_a_due_server_is_claimed_once(server):
    now = time.time()
    schedule.claim_due([(server.id, 10)], now)  # registers it
    later = now + 10.5
    first = schedule.claim_due([(server.id, 10)], later)
    assert [sid for sid, _ in first] == [server.id]
    assert schedule.claim_due([(server.id, 10)], later) == []  # a second dispatcher gets nothing
    assert [sid for sid, _ in schedule.claim_due([(server.id, 10)], later + 10)] == [server.id]


def test_a_missing_privilege_is_named_per_source(make_server, mariadb):
    mariadb.create_monitor_user("nogrants", "pw-nogrants", grants=False)
    server = make_server("no-grants", mariadb.port, user="nogrants", password="pw-nogrants")
    result = poll_server(server.id, only=["global_status", "pfs_waits", "innodb_metrics"])
    outcome = {s.name: s for s in result.sources}
    assert outcome["global_status"].ok  # SHOW GLOBAL STATUS needs no privilege
    for name in ("pfs_waits", "innodb_metrics"):
        assert not outcome[name].ok and not outcome[name].unavailable
        assert "no-grants: " + name in outcome[name].error
        assert "missing privilege" in outcome[name].error
        # The suite's MariaDB is 10.11: docs/privileges.md grants BINLOG MONITOR and SLAVE MONITOR there, to the
        # user the server is polled as.
        assert "GRANT PROCESS, BINLOG MONITOR, SLAVE MONITOR ON *.* TO 'nogrants'@'%';" in outcome[name].error
        assert "GRANT SELECT ON performance_schema.* TO 'nogrants'@'%';" in outcome[name].error
    assert result.ok  # one source worked: the server is reachable, the grants are what is missing


def test_a_call_with_no_source_due_leaves_the_failure_count_alone(make_server, mariadb):
    server = make_server("wrong-password-twice", mariadb.port, password="not-the-password")
    assert not poll_server(server.id).ok
    health = ServerHealth.objects.get(server=server)
    assert (health.consecutive_failures, health.polls) == (1, 1)
    again = poll_server(server.id)  # every source was attempted a moment ago: none is due
    assert again.skipped and not again.sources
    health.refresh_from_db()
    assert (health.consecutive_failures, health.polls, health.last_success_at) == (1, 1, None)


def test_a_restart_with_performance_schema_on_is_seen_by_the_next_poll(make_server, mariadb_without_pfs):
    server = make_server("pfs-switched-on", mariadb_without_pfs.port)
    before = poll_server(server.id, only=["pfs_waits"]).sources[0]
    assert before.unavailable and "performance_schema is OFF" in before.error
    mariadb_without_pfs.restart(performance_schema=True)
    try:
        # pfs_waits alone would never touch the pooled connection while its info says OFF.
        after = poll_server(server.id, only=["pfs_waits"])
        assert after.sources[0].ok, after.sources[0].error
        assert after.info.performance_schema
        health = ServerHealth.objects.get(server=server)
        assert health.sources["pfs_waits"]["ok"] and health.sources["pfs_waits"]["status"] == "ok"
    finally:
        mariadb_without_pfs.restart(performance_schema=False)
