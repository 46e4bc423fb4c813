"""A private MariaDB for tests, demos and benchmarks, under a directory of ours.

mariadb-install-db into the directory, then mariadbd on its own port and socket
with performance_schema ON and the wait/synch instruments timed.
(testing.mariadb re-exports it for the test fixtures.)
"""

import getpass
import os
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import pymysql

from monitor.runtime import supervisor
from monitor.runtime.ports import free_port

PORT_ATTEMPTS = 5


def find_binary(*names: str) -> str | None:
    for name in names:
        for folder in ("", "/usr/sbin/", "/usr/bin/", "/usr/local/bin/", "/usr/local/sbin/"):
            path = shutil.which(folder + name) if folder else shutil.which(name)
            if path:
                return path
    return None


@dataclass
class SandboxMariaDB:
    datadir: Path
    port: int = field(default_factory=free_port)
    performance_schema: bool = True
    server_id: int = 1
    log_bin: bool = False  # a replication source writes a binary log
    # SIGTERM mariadbd if the process that started it dies (the demo). The kernel ties it
    # to the starting thread: start it from one that lives as long as the server should.
    die_with_parent: bool = False
    extra_args: list[str] = field(default_factory=list)  # more mariadbd options, e.g. --ssl-ca=...
    process: subprocess.Popen | None = None

    @property
    def socket(self) -> str:
        return str(self.datadir.parent / f"mariadb-{self.port}.sock")

    def install(self) -> None:
        if (self.datadir / "mysql").exists():
            return
        self.datadir.mkdir(parents=True, exist_ok=True)
        binary = find_binary("mariadb-install-db", "mysql_install_db")
        if not binary:
            raise RuntimeError("mariadb-install-db not found: apt-get install mariadb-server")
        cmd = [binary, "--no-defaults", f"--datadir={self.datadir}", "--user=" + self._user(),
               "--auth-root-authentication-method=normal", "--skip-test-db"]
        # The bootstrap has been seen failing once on a heavily loaded machine:
        # start over from an empty directory once before giving up.
        for _ in (1, 2):
            done = subprocess.run(cmd, capture_output=True, text=True)
            if done.returncode == 0:
                return
            shutil.rmtree(self.datadir, ignore_errors=True)
            self.datadir.mkdir(parents=True)
        raise RuntimeError(f"mariadb-install-db into {self.datadir} failed: {(done.stderr or done.stdout)[-2000:]}")

    def _user(self) -> str:
        return "root" if os.geteuid() == 0 else getpass.getuser()

    def args(self) -> list[str]:
        binary = find_binary("mariadbd", "mysqld")
        if not binary:
            raise RuntimeError("mariadbd not found: apt-get install mariadb-server")
        ps = "ON" if self.performance_schema else "OFF"
        return [
            binary, "--no-defaults", f"--datadir={self.datadir}", f"--user={self._user()}",
            f"--port={self.port}", "--bind-address=127.0.0.1", f"--socket={self.socket}",
            f"--pid-file={self.datadir}/mariadbd.pid", f"--log-error={self.datadir}/error.log",
            "--skip-name-resolve", f"--server-id={self.server_id}", *self.binlog_args(),
            "--innodb-buffer-pool-size=64M",
            "--innodb-log-file-size=48M", "--innodb-flush-log-at-trx-commit=2",
            f"--performance-schema={ps}", "--performance-schema-instrument=wait/synch/%=ON",
            "--performance-schema-instrument=wait/io/%=ON",
            "--performance-schema-consumer-events-statements-current=ON",
            "--max-connections=2000",
            *self.extra_args,
        ]

    def binlog_args(self) -> list[str]:
        if not self.log_bin:
            return ["--skip-log-bin"]
        return [f"--log-bin={self.datadir}/binlog", "--binlog-format=ROW", "--sync-binlog=0"]

    def start(self) -> None:
        self.install()
        for _ in range(PORT_ATTEMPTS):
            if self._start_once():
                return
            self.port = free_port()  # another process took the port between free_port() and our bind
        raise RuntimeError(f"mariadbd found no free port in {PORT_ATTEMPTS} attempts")

    def _start_once(self) -> bool:
        """True once our server answers; False if its port was taken."""
        log = self.datadir / "error.log"
        logged = log.stat().st_size if log.exists() else 0
        self.process = subprocess.Popen(self.args(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                        preexec_fn=supervisor.die_with_parent if self.die_with_parent else None)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                self.process = None
                text = log.read_text(errors="replace")[logged:]
                if "Address already in use" in text:
                    return False
                raise RuntimeError(f"mariadbd exited: {text[-2000:]}")
            if self._answers():
                return True
            time.sleep(0.2)
        self.stop()
        raise RuntimeError("mariadbd did not answer within 60 s")

    def _answers(self) -> bool:
        """Our server answers on our port (not another sandbox that got the port first)."""
        try:
            conn = self.connect()
        except pymysql.MySQLError:
            return False
        try:
            with conn.cursor() as cur:
                cur.execute("SELECT @@datadir")
                return Path(cur.fetchone()[0]).resolve() == self.datadir.resolve()
        except pymysql.MySQLError:
            return False
        finally:
            conn.close()

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def restart(self, performance_schema: bool | None = None) -> None:
        self.stop()
        if performance_schema is not None:
            self.performance_schema = performance_schema
        self.start()

    def connect(self, user: str = "root", password: str = "", **kwargs) -> pymysql.Connection:
        return pymysql.connect(
            host="127.0.0.1", port=self.port, user=user, password=password,
            connect_timeout=5, autocommit=True, **kwargs,
        )

    def execute(self, *statements: str) -> list[tuple]:
        conn = self.connect()
        try:
            with conn.cursor() as cur:
                for sql in statements:
                    cur.execute(sql)
                return list(cur.fetchall())
        finally:
            conn.close()

    def create_monitor_user(self, user: str = "steady", password: str = "s3cret!", grants: bool = True) -> None:
        """The least-privilege monitoring user of docs/privileges.md."""
        self.execute(f"CREATE USER IF NOT EXISTS '{user}'@'%' IDENTIFIED BY '{password}'")
        if grants:
            self.execute(
                f"GRANT PROCESS, REPLICATION CLIENT ON *.* TO '{user}'@'%'",
                # MariaDB 10.5.9+ moved SHOW REPLICA STATUS out of REPLICATION CLIENT (now BINLOG MONITOR).
                f"GRANT SLAVE MONITOR ON *.* TO '{user}'@'%'",
                f"GRANT SELECT ON performance_schema.* TO '{user}'@'%'",
            )

    def replicate_from(self, source: "SandboxMariaDB", user: str = "repl", password: str = "r3pl!") -> None:
        """Make this server a replica of source (which must write a binary log), from its current position."""
        source.execute(f"CREATE USER IF NOT EXISTS '{user}'@'%' IDENTIFIED BY '{password}'",
                       f"GRANT REPLICATION SLAVE ON *.* TO '{user}'@'%'")
        log_file, position = source.execute("SHOW MASTER STATUS")[0][:2]
        self.execute(f"CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT={source.port}, MASTER_USER='{user}', "
                     f"MASTER_PASSWORD='{password}', MASTER_LOG_FILE='{log_file}', MASTER_LOG_POS={position}, "
                     "MASTER_USE_GTID=no, MASTER_CONNECT_RETRY=1", "START SLAVE")
