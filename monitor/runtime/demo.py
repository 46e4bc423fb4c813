"""The `make run` demo: a sandbox MariaDB under var/demo-mariadb, registered as server `local`, under a light load.

A new user sees TPS, waits and history length move within a minute without
installing or configuring anything but the mariadb-server package. The load
is `manage.py stress` in a child process that `up` supervises; its read view
is reopened every few minutes, so history length climbs and falls back
(the purge-lag picture of seed 000) instead of growing forever.
"""

import argparse
import os
import signal
import socket
import sys
from pathlib import Path

import psutil
from django.conf import settings

from monitor.env import BASE_DIR, private_file
from monitor.runtime import node_exporter
from monitor.runtime.ports import free_port
from monitor.runtime.sandbox import SandboxMariaDB, find_binary
from monitor.runtime.supervisor import Child, Daemon
from servers.models import Server
from workload.pause import demo_flag

SERVER_NAME = "local"
MONITOR_USER = "steady"  # least privilege, as docs/ describe for any monitored server
LOAD_USER = "stress"  # may write only the driver's own schema
LOAD_PASSWORD_ENV = "STEADYSTATE_DEMO_LOAD_PASSWORD"
INSTALL_HINT = ("SteadyState demo: mariadbd not found, so there is no demo server. To get one, install it "
                "(apt-get install mariadb-server) and run `make run` again. Carrying on without the demo.")
LOAD_ARGS = [
    "--mode", "mixed", "--concurrency", "4", "--think-ms", "20", "--duration", "0", "--interval", "60",
    "--hold-trx", "90", "--hold-every", "180", "--run", "demo load",
]

# CREATE USER / ALTER USER / GRANT: the load's own user, limited to the driver's schema.
CREATE_LOAD_USER = "CREATE USER IF NOT EXISTS '{user}'@'%' IDENTIFIED BY '{password}'"
SET_PASSWORD = "ALTER USER '{user}'@'%' IDENTIFIED BY '{password}'"
GRANT_LOAD = "GRANT ALL ON steadystate_stress.* TO '{user}'@'%'"
# SET GLOBAL: the purge and commit counters (off by default) and a purge lag line at the demo's scale.
PURGE_SETTINGS = (
    "SET GLOBAL innodb_monitor_enable = 'purge%'",
    "SET GLOBAL innodb_monitor_enable = 'trx_undo%'",
    "SET GLOBAL innodb_monitor_enable = 'trx_rw_commits'",
    "SET GLOBAL innodb_monitor_enable = 'trx_ro_commits'",
    "SET GLOBAL innodb_monitor_enable = 'trx_nl_ro_commits'",
    "SET GLOBAL innodb_max_purge_lag = 20000",
)


def available() -> bool:
    return find_binary("mariadbd", "mysqld") is not None


class Demo:
    def __init__(self, var_dir: Path, say=print):
        self.dir = var_dir / "demo-mariadb"
        self.say = say
        self.sandbox: SandboxMariaDB | None = None
        self.node_exporter = node_exporter.find()  # the host statistics of server 'local', when installed
        self.node_exporter_port = 0

    def start(self) -> bool:
        """Start the sandbox and register it; False (after saying why) when there is no demo."""
        if not available():
            self.say(INSTALL_HINT)
            return False
        self.dir.mkdir(parents=True, exist_ok=True)
        if not self._claim_server_name():
            return False
        stop_leftover(self.dir / "data")
        self.sandbox = SandboxMariaDB(self.dir / "data", port=self._port("port"), die_with_parent=True)
        self.sandbox.start()
        (self.dir / "port").write_text(str(self.sandbox.port))  # it moves if the port was taken meanwhile
        if self.node_exporter:
            self.node_exporter_port = self._port("node_exporter.port")
            (self.dir / "node_exporter.port").write_text(str(self.node_exporter_port))
        else:
            self.say(node_exporter.INSTALL_HINT)
        self._configure()
        self._register()
        self.say(f"SteadyState demo: sandbox MariaDB on 127.0.0.1:{self.sandbox.port} (data in {self.dir}), "
                 f"registered as server '{SERVER_NAME}', light load running"
                 + (f", host statistics from node_exporter on 127.0.0.1:{self.node_exporter_port}"
                    if self.node_exporter_port else ""))
        return True

    def running(self) -> bool:
        return bool(self.sandbox and self.sandbox.process and self.sandbox.process.poll() is None)

    def restart(self) -> None:
        """The sandbox MariaDB again after it died (InnoDB recovers its data); re-registered if its port moved."""
        sandbox = self._started()
        port = sandbox.port
        sandbox.start()
        sandbox.execute(*PURGE_SETTINGS)  # SET GLOBAL died with it: TPS would count explicit transactions only
        if sandbox.port != port:
            (self.dir / "port").write_text(str(sandbox.port))
            self._register()

    def _started(self) -> SandboxMariaDB:
        if self.sandbox is None:  # restart, configure and register follow a start() that made one
            raise RuntimeError("the demo's sandbox MariaDB was never started")
        return self.sandbox

    def stop(self) -> None:
        if self.sandbox:
            self.sandbox.stop()
            self.sandbox = None

    def load_command(self) -> list[str]:
        """The supervised child that drives the demo load (Ctrl-C closes its run)."""
        return [sys.executable, str(BASE_DIR / "manage.py"), "stress", SERVER_NAME, *LOAD_ARGS,
                "--user", LOAD_USER, "--password-env", LOAD_PASSWORD_ENV, "--pause-file", str(demo_flag())]

    def node_exporter_command(self) -> list[str] | None:
        """The supervised node_exporter giving server 'local' its host statistics (None when not installed)."""
        if not self.node_exporter or not self.node_exporter_port:
            return None
        return node_exporter.command(self.node_exporter, self.node_exporter_port)

    def load_env(self, base: dict[str, str] | None = None) -> dict[str, str]:
        return {**(os.environ if base is None else base), LOAD_PASSWORD_ENV: self._secret("load")}

    def _secret(self, who: str) -> str:
        return private_file(self.dir / f"{who}.password", lambda: __import__("secrets").token_urlsafe(18))

    def _port(self, file_name: str) -> int:
        """The port of the last run if still free, so the registered server keeps its address."""
        path = self.dir / file_name
        port = int(path.read_text()) if path.exists() else 0
        return port if port and _port_free(port) else free_port()

    def _configure(self) -> None:
        monitor_pw, load_pw = self._secret("monitor"), self._secret("load")
        sandbox = self._started()
        sandbox.create_monitor_user(MONITOR_USER, monitor_pw)
        sandbox.execute(
            SET_PASSWORD.format(user=MONITOR_USER, password=monitor_pw),
            CREATE_LOAD_USER.format(user=LOAD_USER, password=load_pw),
            SET_PASSWORD.format(user=LOAD_USER, password=load_pw),
            GRANT_LOAD.format(user=LOAD_USER),
            *PURGE_SETTINGS,
        )

    def _claim_server_name(self) -> bool:
        other = Server.objects.filter(name=SERVER_NAME).exclude(tags__contains=["demo"]).first()
        if other:
            self.say(f"SteadyState demo: a server named '{SERVER_NAME}' ({other.address}) is already registered "
                     "and is not the demo's; rename it to get the demo back. Carrying on without the demo.")
        return other is None

    def _register(self) -> None:
        server = Server.objects.filter(name=SERVER_NAME).first() or Server(
            name=SERVER_NAME, tags=["demo"], poll_interval=5)
        server.host, server.port, server.socket, server.user = "127.0.0.1", self._started().port, "", MONITOR_USER
        server.password = self._secret("monitor")
        port = self.node_exporter_port
        server.node_exporter_url = node_exporter.metrics_url(port) if port else ""
        server.save()


def stop_leftover(datadir: Path) -> None:
    """A mariadbd left on our data directory by a killed `make run` would keep the new one from starting."""
    pidfile = datadir / "mariadbd.pid"
    try:
        proc = psutil.Process(int(pidfile.read_text().strip()))
        if str(datadir) not in " ".join(proc.cmdline()):
            return  # the pid was reused by something else
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
    except (FileNotFoundError, ValueError, psutil.Error):
        pass


def _port_free(port: int) -> bool:
    with socket.socket() as s:
        # As mariadbd does: connections it closed may linger in TIME_WAIT on the port.
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
            return True
        except OSError:
            return False


def add_up_arguments(parser) -> None:
    """`manage.py up --demo/--no-demo`; by default on with the embedded Postgres (a local try-out)."""
    parser.add_argument("--demo", action=argparse.BooleanOptionalAction, default=None,
                        help="start the sandbox MariaDB demo (server 'local' under a light load); "
                             "default: on when no DATABASE_URL is set")


def up_children(opts: dict, env: dict[str, str]) -> list[Child | Daemon]:
    """The demo load as a child of `up`; the sandbox stops after the group (on_stop), so the load ends first."""
    wanted = opts.get("demo")
    if not (settings.EMBEDDED_DB if wanted is None else wanted):
        return []
    demo = Demo(Path(settings.VAR_DIR), say=_say)
    try:
        if not demo.start():
            return []
    except Exception as exc:  # noqa: BLE001 - the product runs without its demo
        demo.stop()
        _say(f"SteadyState demo: the sandbox MariaDB did not start ({exc}); see {demo.dir / 'data' / 'error.log'}. "
             "Carrying on without the demo (`manage.py up --no-demo` skips it).")
        return []
    # The sandbox is watched too: if it dies it is started again, the product never stops for the demo.
    children: list[Child | Daemon] = [Child("demo-load", demo.load_command(), demo.load_env(env), on_stop=demo.stop),
                Daemon("demo-mariadb", demo.running, demo.restart)]
    agent = demo.node_exporter_command()
    if agent:
        children.append(Child("demo-node-exporter", agent))
    return children


def _say(line: str) -> None:
    print(line, flush=True)
