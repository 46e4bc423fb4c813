import io

import psutil
import pymysql
import pytest
from django.core.management import call_command

from collectors.connection import connect
from monitor.runtime import demo, node_exporter
from servers.models import Run, Server
from workload.pause import demo_flag

pytestmark = pytest.mark.django_db


@pytest.fixture
def demos(private_dir):
    started = []

    def make():
        started.append(demo.Demo(private_dir, say=messages.append))
        return started[-1]

    messages = []
    make.messages = messages
    yield make
    for d in started:
        d.stop()


def test_it_starts_a_sandbox_and_registers_it_with_a_read_only_monitoring_user(demos):
    d = demos()
    assert d.start()
    server = Server.objects.get(name="local")
    assert (server.port, server.user, server.tags) == (d.sandbox.port, "steady", ["demo"])
    conn = connect(server)
    with conn.cursor() as cur:
        cur.execute("SELECT @@performance_schema")
        assert cur.fetchone()[0] == 1
        cur.execute("SELECT COUNT(*) FROM performance_schema.setup_instruments "
                    "WHERE NAME LIKE 'wait/synch/%' AND ENABLED = 'YES' AND TIMED = 'YES'")
        assert cur.fetchone()[0] > 0
        cur.execute("SELECT ENABLED FROM information_schema.INNODB_METRICS WHERE NAME = 'purge_invoked'")
        assert cur.fetchone()[0] == 1  # the purge lag view gets its purge rate
        cur.execute("SELECT @@innodb_max_purge_lag")
        assert cur.fetchone()[0] == 20000  # and a reference line the demo's history length approaches
        with pytest.raises(pymysql.MySQLError, match="denied"):
            cur.execute("CREATE DATABASE not_for_monitors")
    conn.close()
    assert "registered as server 'local'" in demos.messages[-1]


def test_its_load_runs_as_the_load_user(demos, monkeypatch):
    d = demos()
    d.start()
    argv = d.load_command()
    assert argv[2:4] == ["stress", "local"] and "--duration" in argv
    assert argv[argv.index("--pause-file") + 1] == str(demo_flag())  # what `manage.py demo pause` sets
    monkeypatch.setenv(demo.LOAD_PASSWORD_ENV, d.load_env()[demo.LOAD_PASSWORD_ENV])
    args = argv[4:]
    args[args.index("--duration") + 1], args[args.index("--interval") + 1] = "1", "0.5"
    args[args.index("--hold-trx") + 1] = "0.5"
    out = io.StringIO()
    call_command("stress", "local", *args, stdout=out)
    assert "completed:" in out.getvalue()
    assert Run.objects.get(name="demo load").ended_at is not None


def demo_globals(server: Server) -> tuple:
    conn = connect(server)
    with conn.cursor() as cur:
        cur.execute("SELECT NAME, ENABLED FROM information_schema.INNODB_METRICS WHERE NAME IN "
                    "('trx_rw_commits', 'purge_invoked') ORDER BY NAME")
        counters = cur.fetchall()
        cur.execute("SELECT @@innodb_max_purge_lag")
        lag = cur.fetchone()[0]
    conn.close()
    return counters, lag


def test_a_sandbox_restarted_after_a_crash_gets_its_counters_back(demos):
    """SET GLOBAL is lost when mariadbd dies: after `up` restarted it, TPS fell back to explicit transactions
    only (Com_commit), the purge page lost its rates and innodb_max_purge_lag its line."""
    d = demos()
    d.start()
    server = Server.objects.get(name="local")
    on = ((("purge_invoked", 1), ("trx_rw_commits", 1)), 20000)
    assert demo_globals(server) == on
    d.sandbox.process.kill()
    d.sandbox.process.wait()
    d.restart()
    assert demo_globals(Server.objects.get(name="local")) == on


def test_a_second_start_reuses_the_data_port_and_server_and_stops_a_leftover(demos):
    first = demos()
    first.start()
    leftover = psutil.Process(first.sandbox.process.pid)
    # As if `make run` had been killed: a new Demo finds the old mariadbd still on the data directory.
    second = demos()
    assert second.start()
    assert not leftover.is_running() or leftover.status() == psutil.STATUS_ZOMBIE
    assert second.sandbox.port == first.sandbox.port
    assert Server.objects.filter(name="local").count() == 1


def test_without_mariadbd_it_says_how_to_install_it(demos, monkeypatch):
    monkeypatch.setattr(demo, "find_binary", lambda *names: None)
    assert not demos().start()
    assert "apt-get install mariadb-server" in demos.messages[-1]


def test_it_leaves_a_server_named_local_alone(demos):
    Server.objects.create(name="local", host="db.example.com", user="steady")
    assert not demos().start()
    assert "already registered" in demos.messages[-1]
    assert Server.objects.get(name="local").host == "db.example.com"


def test_up_gets_the_load_as_a_child_and_stops_the_sandbox_after_it(settings, private_dir):
    settings.VAR_DIR = private_dir
    settings.EMBEDDED_DB = False
    assert demo.up_children({"demo": None}, {}) == []  # with an external Postgres, only on request
    assert demo.up_children({"demo": False}, {}) == []
    settings.EMBEDDED_DB = True
    child, watched, *agent = demo.up_children({"demo": None}, {"PATH": "/usr/bin"})
    mariadbd = psutil.Process(int((private_dir / "demo-mariadb" / "data" / "mariadbd.pid").read_text()))
    try:
        assert child.name == "demo-load" and child.argv[2:4] == ["stress", "local"]
        assert watched.name == "demo-mariadb" and watched.alive()  # restarted by up should it die
        if node_exporter.find():  # the demo server's host statistics, on a port of its own
            port = int((private_dir / "demo-mariadb" / "node_exporter.port").read_text())
            assert [a.name for a in agent] == ["demo-node-exporter"]
            assert f"--web.listen-address=127.0.0.1:{port}" in agent[0].argv
            assert Server.objects.get(name="local").node_exporter_url == f"http://127.0.0.1:{port}/metrics"
        else:
            assert agent == [] and Server.objects.get(name="local").node_exporter_url == ""
        password = (private_dir / "demo-mariadb" / "load.password").read_text().strip()
        assert child.env == {"PATH": "/usr/bin", demo.LOAD_PASSWORD_ENV: password}
        assert password not in " ".join(child.argv)  # never in ps
    finally:
        child.on_stop()
    assert not mariadbd.is_running() or mariadbd.status() == psutil.STATUS_ZOMBIE
