"""One reused connection per monitored server per worker process.

Reconnecting costs the server a handshake, an authentication and our session
guards; in steady state a poll must not connect at all.
"""

import atexit
import threading
import time
from dataclasses import dataclass, field, replace

import pymysql

from collectors import tls as tls_modes
from collectors import transactions
from collectors.connection import ServerInfo, detect, open_connection, parse_version
from collectors.pinning import NO_PIN, Pin
from collectors.setup_changes import SetupWatch
from collectors.tls import TLS

# Read once per connection: the boot time tells a restart from a normal poll.
UPTIME_SQL = "SHOW GLOBAL STATUS LIKE 'Uptime'"
# Server-side codes that end the session: shutdown in progress, connection killed, idle timeout.
SESSION_ENDED = (1053, 1927, 4031)
# A counter of every transaction turned on after the connection opened is taken within this long.
BASIS_RECHECK_S = 60


@dataclass
class Target:
    """How to reach a server: what the pool needs from servers.models.Server."""

    server_id: int
    name: str
    host: str
    port: int
    socket: str
    user: str
    password: str
    tls: TLS = tls_modes.DEFAULT
    flavor: str = ""  # as last detected (servers.models.Server): picks the sources' intervals
    version: tuple[int, int, int] = (0, 0, 0)
    node_exporter_url: str = ""  # the host's node_exporter, read by the http source of that name
    pin: Pin = NO_PIN  # what the server must prove for the stored password to be sent (collectors.pinning)
    statements_interval: int = 60  # seconds between reads of the statement digests (the statements source)

    @classmethod
    def from_server(cls, server) -> "Target":
        return cls(server.id, server.name, server.host, server.port, server.socket, server.user, plain_password(server),
                   TLS.of(server), server.flavor, parse_version(server.version), server.node_exporter_url,
                   Pin.of(server), server.statements_interval)

    @property
    def address(self) -> str:
        return self.socket or f"{self.host}:{self.port}"

    def fingerprint(self) -> tuple:
        return (self.host, self.port, self.socket, self.user, self.password, self.tls, self.pin)


# The stored (encrypted) password -> the plain one: decrypting each server's password for every poll
# was a twentieth of a poll's CPU. A new password is a new token; a pooled connection holds the
# plain password anyway.
PLAIN: dict[str, str] = {}
MAX_PLAIN = 100_000


def plain_password(server) -> str:
    """server.password, decrypted once per process for each stored token."""
    token = server.password_encrypted
    plain = PLAIN.get(token)
    if plain is None:
        plain = server.password
        if len(PLAIN) >= MAX_PLAIN:
            PLAIN.clear()
        PLAIN[token] = plain
    return plain


@dataclass
class Pooled:
    conn: pymysql.Connection
    info: ServerInfo
    boot: float | None  # epoch seconds the server started, where the server says
    fingerprint: tuple
    reused: bool = False  # False on the poll that opened it
    # When the TPS counter was last chosen (at the connection's start), and under which switches.
    basis_watch: SetupWatch = field(default_factory=lambda: SetupWatch(at=time.monotonic()))


class ConnectionPool:
    def __init__(self):
        self._entries: dict[int, Pooled] = {}
        self._lock = threading.Lock()
        self.connects = 0  # opened since the process started: the benchmark checks it stays flat

    def get(self, target: Target) -> Pooled:
        with self._lock:
            entry = self._entries.pop(target.server_id, None)
        if entry and entry.fingerprint == target.fingerprint() and entry.conn.open:
            entry.reused = True
            return entry
        if entry:
            close_quietly(entry.conn)
        return self._open(target)

    def put(self, target: Target, entry: Pooled) -> None:
        with self._lock:
            old = self._entries.pop(target.server_id, None)
            self._entries[target.server_id] = entry
        if old and old is not entry:
            close_quietly(old.conn)

    def discard(self, server_id: int, entry: Pooled | None = None) -> None:
        with self._lock:
            current = self._entries.get(server_id)
            if entry is None or current is entry:
                self._entries.pop(server_id, None)
        if entry:
            close_quietly(entry.conn)

    def close_all(self) -> None:
        with self._lock:
            entries, self._entries = list(self._entries.values()), {}
        for entry in entries:
            close_quietly(entry.conn)

    def refresh(self, target: Target, entry: Pooled) -> Pooled:
        """The entry with its server info and boot time read again; reopened if the connection broke.

        After a restart the server may run another version or with performance_schema
        switched; a source skipped on the old info would never touch the connection to find out.
        """
        try:
            entry.info, entry.boot = describe(entry.conn)
            return entry
        except (pymysql.MySQLError, OSError) as exc:
            if not is_connection_error(exc):
                raise
        self.discard(target.server_id, entry)
        return self._open(target)

    def _open(self, target: Target) -> Pooled:
        conn = open_connection(host=target.host, port=target.port, socket=target.socket,
                               user=target.user, password=target.password, tls=target.tls, pin=target.pin)
        self.connects += 1
        try:
            info, boot = describe(conn)
        except Exception:
            close_quietly(conn)
            raise
        return Pooled(conn, info, boot, target.fingerprint())

    def __len__(self) -> int:
        return len(self._entries)


def recheck_basis(entry: Pooled) -> None:
    """Take a better TPS counter an administrator turned on since the connection chose one (within
    BASIS_RECHECK_S, when collectors.setup_changes sees a switch move): Test connection and the pages give
    the statement, and running it must be enough."""
    info = entry.info
    if info.tps_basis == transactions.TRX_SUMMARY or not entry.basis_watch.due(entry.conn, info, BASIS_RECHECK_S):
        return
    better, refused = transactions.basis(entry.conn, info.flavor, info.version_tuple, info.performance_schema)
    entry.basis_watch.mark()
    if (better, refused) != (info.tps_basis, info.tps_refused):
        entry.info = replace(info, tps_basis=better, tps_refused=refused)


def describe(conn: pymysql.Connection) -> tuple[ServerInfo, float | None]:
    """Flavor, version and performance_schema, and the epoch second the server started."""
    info = detect(conn)
    with conn.cursor() as cur:
        cur.execute(UPTIME_SQL)
        row = cur.fetchone()
    return info, time.time() - float(row[1]) if row else None


def is_connection_error(exc: BaseException) -> bool:
    """After this error the connection cannot be trusted (lost, gone, timed out): reconnect.

    PyMySQL raises OperationalError for privilege errors too, so the code decides.
    """
    if isinstance(exc, (pymysql.err.InterfaceError, OSError)):
        return True
    code = exc.args[0] if exc.args and isinstance(exc.args[0], int) else 0
    return isinstance(exc, pymysql.MySQLError) and (code >= 2000 or code in SESSION_ENDED)


def close_quietly(conn: pymysql.Connection) -> None:
    try:
        conn.close()
    except Exception:
        pass  # already broken: nothing to tell the server


POOL = ConnectionPool()
# A process that exits with connections open leaves "Aborted connection" in each server's
# error log (and counts in Aborted_clients): say goodbye (COM_QUIT) on the way out.
atexit.register(POOL.close_all)
