"""Connections to monitored servers: short timeouts, session guards, flavor detection."""

import hashlib
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import pymysql
from pymysql import converters
from pymysql.connections import TEXT_TYPES
from pymysql.constants import CLIENT, COMMAND, CR, FIELD_TYPE
from pymysql.protocol import FieldDescriptorPacket

from collectors import pinning, transactions
from collectors import tls as tls_modes
from collectors.pinning import NO_PIN, Guard, Pin
from collectors.tls import TLS

IDENTITY_SQL = "SELECT VERSION(), @@version_comment, @@performance_schema"
UNKNOWN_SYSTEM_VARIABLE = 1193
ACCESS_DENIED = (1045, 1698)  # wrong password or host; a unix_socket login refused
CONNECT_TIMEOUT = 3  # seconds: an unreachable server must not hold a poll slot
READ_TIMEOUT = 5  # seconds: a server that accepts and never answers fails fast too

GUARD_TIME_LIMIT_S = 5  # no statement of the monitor runs longer (MariaDB 10.1.1+; MySQL 5.7.8+, SELECT only)
# Each guard with the (flavor, first version) having it, None for all; one SET of the known ones (docs/sources.md).
SESSION_GUARDS = (
    ("long_query_time = 31536000", None),
    ("lock_wait_timeout = 2", {"mysql": (5, 5, 3), "mariadb": (5, 5, 0)}),
    ("innodb_lock_wait_timeout = 1", {"mysql": (5, 5, 0), "mariadb": (5, 5, 0)}),
    (f"max_statement_time = {GUARD_TIME_LIMIT_S}", {"mariadb": (10, 1, 1)}),  # seconds, every statement
    (f"max_execution_time = {GUARD_TIME_LIMIT_S * 1000}", {"mysql": (5, 7, 8)}),  # milliseconds, SELECT only
    # Sources read a whole table as one GROUP_CONCAT text (collectors.source.joined_rows);
    # MySQL's default of 1024 bytes would cut it short.
    ("group_concat_max_len = 1048576", None),
)
# MariaDB's handshake puts a fake "5.5.5-" before its real version for old clients.
MARIADB_HANDSHAKE_PREFIX = "5.5.5-"


# Plugins that send the password itself to whoever answers: only over TLS whose certificate we verified.
CLEAR_TEXT_PLUGINS = (b"mysql_clear_password", b"dialog")
OLD_PASSWORD_PLUGIN = b"mysql_old_password"


class ReusedTLSConnection(pymysql.connections.Connection):
    """PyMySQL's default "TLS if the server offers it", with one TLS context per process,
    and no password in clear text to a server we have not verified.

    PyMySQL builds a fresh context (loading the system CA store, ~20 ms of CPU)
    for every connection; at fleet scale that was most of a new target's cost.
    PyMySQL also honours a server's switch to mysql_clear_password on any
    connection: a fake server (or anyone in the path) would read the password.
    The certificate or RSA key a server proves is checked against the pinned one
    before the password can leave (collectors.pinning).
    """

    _preferred_ctx = None

    def __init__(self, *, pin: Pin = NO_PIN, trust_new: bool = False, **kwargs) -> None:
        self.guard = Guard(pin, trust_new)  # before PyMySQL's __init__, which connects
        super().__init__(auth_plugin_map=pinning.PLUGINS, **kwargs)

    def _create_ssl_ctx(self, sslp):
        if sslp:  # explicit TLS settings: PyMySQL's own handling
            return GuardedContext(super()._create_ssl_ctx(sslp), self)
        cls = type(self)
        if cls._preferred_ctx is None:
            cls._preferred_ctx = super()._create_ssl_ctx(sslp)
        return GuardedContext(cls._preferred_ctx, self)

    def _request_authentication(self):
        if self.unix_socket:
            self.guard.local()
        elif not (self.ssl and self.server_capabilities & CLIENT.SSL):
            self.guard.no_tls()
        return super()._request_authentication()

    def _process_auth(self, plugin_name, auth_packet, handler=None):
        if plugin_name in CLEAR_TEXT_PLUGINS and not tls_modes.verified(self._sock):
            raise pymysql.err.OperationalError(
                CR.CR_AUTH_PLUGIN_CANNOT_LOAD,
                f"the server asked for the clear-text authentication plugin '{plugin_name.decode()}': "
                "refused, the password is only sent in clear text over TLS with a verified certificate "
                "(TLS mode verify-ca or verify-identity)")
        if plugin_name == OLD_PASSWORD_PLUGIN:  # PyMySQL names a scrambler it does not have: AttributeError
            raise pymysql.err.OperationalError(
                CR.CR_AUTH_PLUGIN_CANNOT_LOAD,
                "the server asked for the pre-4.1 authentication plugin 'mysql_old_password': not supported "
                "(insecure, removed in MySQL 5.7.5); give the monitoring user a password of a current plugin, "
                "e.g. ALTER USER ... IDENTIFIED WITH mysql_native_password BY '...'")
        return super()._process_auth(plugin_name, auth_packet, handler)

    def _read_packet(self, packet_type=pymysql.protocol.MysqlPacket):
        if packet_type is not FieldDescriptorPacket:
            return super()._read_packet(packet_type)
        # An error packet raises in there, as PyMySQL's own read of a descriptor does.
        return kept_field(super()._read_packet().get_all_data(), self.encoding)


class KeptField(FieldDescriptorPacket):
    """A column descriptor parsed once per process, its description with it: read-only once made."""

    def __init__(self, data: bytes, encoding: str) -> None:
        super().__init__(data, encoding)
        self._description = super().description()

    def description(self) -> tuple:
        return self._description


# A column descriptor's bytes -> it parsed. A server sends the same descriptors for the same statement every
# poll (name, type, length: ~10 a poll, 62 for SHOW ALL SLAVES STATUS), and PyMySQL parses each in Python.
FIELDS: dict[tuple[bytes, str], KeptField] = {}
MAX_FIELDS = 4096  # distinct descriptors (statements, versions, charsets): past this they are parsed again


def kept_field(data: bytes, encoding: str) -> KeptField:
    field = FIELDS.get((data, encoding))
    if field is None:
        if len(FIELDS) >= MAX_FIELDS:
            FIELDS.clear()
        field = FIELDS[data, encoding] = KeptField(data, encoding)
    return field


# PyMySQL's own packet read (sequence numbers, error packets, packets past 16 MB), not ReusedTLSConnection's.
read_packet = pymysql.connections.Connection._read_packet


@dataclass(frozen=True)
class Columns:
    """A statement's column descriptors and the EOF after them, as the server sent them (headers included), and how
    each column's text is read: (encoding, converter), as PyMySQL's result reader chooses them."""

    count: int
    sent: bytes
    reader: tuple[tuple[str | None, Any], ...]


# (statement, server version, encoding) -> its columns as last answered: a server sends the same bytes every poll.
# (Every connection here converts with PyMySQL's default converters: open_connection passes none of its own.)
COLUMNS: dict[tuple, Columns] = {}


def one_row(conn: pymysql.Connection, sql: str) -> tuple | None:
    """The first row of a statement's answer as a cursor's fetchall()[0] gives it (None: no row), read without
    the cursor and result objects of PyMySQL.

    The poll's shared statement (collectors.shared_read) answers one row of a few texts every poll: through the
    cursor, its dozen packets went through some 40 calls of PyMySQL's Python each, and its column descriptors,
    the same bytes every poll, through a read of each. Here they are compared with those of the last answer at
    once, and the other packets read as PyMySQL reads them.
    """
    conn._execute_command(COMMAND.COM_QUERY, sql)
    conn._result = None  # as PyMySQL's own read of an answer starts: no earlier result is pending now
    first = read_packet(conn)
    if not first.is_resultset_packet():  # a SELECT answers columns; anything else is not followed safely here
        conn._force_close()
        raise pymysql.err.OperationalError(CR.CR_COMMANDS_OUT_OF_SYNC, "the server did not answer the statement "
                                           "with a result set (the connection is closed)")
    count = first.read_length_encoded_integer()
    columns = COLUMNS.get((sql, conn.server_version, conn.encoding, conn.use_unicode))
    if columns is None or columns.count != count or not sent_next(conn, columns):
        columns = read_columns(conn, sql, count)
    rows = []
    while not (packet := read_packet(conn)).is_eof_packet():
        rows.append(packet.get_all_data())
    return row_of(rows[0], columns.reader) if rows else None


def sent_next(conn: pymysql.Connection, columns: Columns) -> bool:
    """Whether the next bytes on the connection are these columns as last sent (taken if so; else nothing is)."""
    sent = columns.sent
    try:
        ahead = conn._rfile.peek(len(sent))  # what is buffered, or one read of the socket: never more
    except OSError as exc:
        conn._force_close()
        raise pymysql.err.OperationalError(CR.CR_SERVER_LOST,
                                           f"Lost connection to MySQL server during query ({exc})") from exc
    except BaseException:
        conn._force_close()
        raise
    if ahead[:len(sent)] != sent:
        return False
    conn._rfile.read(len(sent))
    conn._next_seq_id = (conn._next_seq_id + columns.count + 1) % 256  # the descriptors and their EOF
    return True


def read_columns(conn: pymysql.Connection, sql: str, count: int) -> Columns:
    """The column descriptors and their EOF read packet by packet, kept as sent for the next answer."""
    seq = conn._next_seq_id
    packets = [read_packet(conn).get_all_data() for _ in range(count)]
    eof = read_packet(conn)
    if not eof.is_eof_packet():
        conn._force_close()
        raise pymysql.err.OperationalError(CR.CR_COMMANDS_OUT_OF_SYNC, "protocol error: no EOF after the columns "
                                           "(the connection is closed)")
    sent = b"".join(len(data).to_bytes(3, "little") + bytes([(seq + i) % 256]) + data
                    for i, data in enumerate([*packets, eof.get_all_data()]))
    columns = Columns(count, sent, tuple(column_reader(conn, kept_field(data, conn.encoding)) for data in packets))
    if len(COLUMNS) >= MAX_FIELDS:
        COLUMNS.clear()
    COLUMNS[sql, conn.server_version, conn.encoding, conn.use_unicode] = columns
    return columns


def column_reader(conn: pymysql.Connection, field: FieldDescriptorPacket) -> tuple[str | None, Any]:
    """PyMySQL's choice of a column's (encoding, converter) (MySQLResult._get_descriptions)."""
    encoding: str | None = None
    if conn.use_unicode:
        if field.type_code == FIELD_TYPE.JSON:
            encoding = conn.encoding
        elif field.type_code in TEXT_TYPES:
            encoding = None if field.charsetnr == 63 else conn.encoding  # charset binary: bytes
        else:
            encoding = "ascii"
    converter = conn.decoders.get(field.type_code)
    return encoding, None if converter is converters.through else converter


# A length-coded integer's first byte -> the bytes that follow it (MysqlPacket.read_length_encoded_integer);
# 251 is NULL, and PyMySQL reads a 255 as NULL too.
LENGTH_BYTES = {252: 2, 253: 3, 254: 8}


def row_of(data: bytes, reader: tuple[tuple[str | None, Any], ...]) -> tuple:
    """A text row's columns, each a length-coded string (MysqlPacket.read_length_coded_string), read as reader says."""
    row: list = []
    position, end = 0, len(data)
    for encoding, converter in reader:
        if position >= end:  # no more columns in this row, as PyMySQL reads it
            break
        length, position = data[position], position + 1
        if length >= 251:
            size = LENGTH_BYTES.get(length)
            if size is None:
                row.append(None)
                continue
            length, position = int.from_bytes(data[position:position + size], "little"), position + size
        text = data[position:position + length]
        if len(text) != length:
            raise pymysql.err.OperationalError(CR.CR_MALFORMED_PACKET, "a row shorter than its columns say")
        position += length
        value = text if encoding is None else text.decode(encoding)
        row.append(value if converter is None else converter(value))
    return tuple(row)


class GuardedContext:
    """A TLS context whose handshake is followed, before any authentication byte, by the pin's check."""

    def __init__(self, ctx, conn: ReusedTLSConnection) -> None:
        self.ctx, self.conn = ctx, conn

    def wrap_socket(self, sock, server_hostname=None):
        tls_sock = self.ctx.wrap_socket(sock, server_hostname=server_hostname)
        der = tls_sock.getpeercert(binary_form=True) or b""
        plugin = self.conn._auth_plugin_name
        try:
            self.conn.guard.tls_established(hashlib.sha256(der).hexdigest(), tls_modes.verified(tls_sock),
                                            plugin.decode() if isinstance(plugin, bytes) else plugin)
        except pymysql.MySQLError:
            tls_sock.close()
            raise
        return tls_sock


class ConnectError(Exception):
    """A connection failure worded for the user (no password in it); `code` is the server's error number."""

    def __init__(self, message: str, code: int | None = None):
        super().__init__(message)
        self.code = code

    @property
    def denied(self) -> bool:
        """The server refused the login: a wrong password or user does not pass by waiting."""
        return self.code in ACCESS_DENIED


@dataclass(frozen=True)
class ServerInfo:
    flavor: str  # "mysql" or "mariadb"
    version: str  # as the server reports it, e.g. "10.11.6-MariaDB-0+deb12u1"
    version_tuple: tuple[int, int, int]
    performance_schema: bool
    tps_basis: str = transactions.EXPLICIT  # the counter TPS is taken from (collectors.transactions)
    # the trx counters the user may not read (no PROCESS, no SELECT on performance_schema: transactions.basis)
    tps_refused: frozenset[str] = frozenset()

    @property
    def label(self) -> str:
        return f"{'MariaDB' if self.flavor == 'mariadb' else 'MySQL'} {'.'.join(map(str, self.version_tuple))}"


def open_connection(*, host: str = "", port: int = 3306, socket: str = "", user: str, password: str,
                    tls: TLS = tls_modes.DEFAULT, connect_timeout: float = CONNECT_TIMEOUT,
                    read_timeout: float = READ_TIMEOUT, guards: bool = True, pin: Pin = NO_PIN,
                    trust_new: bool = False) -> pymysql.Connection:
    """A connection; `pin` is what the server must prove for the password to be sent, `trust_new` (a
    password the user typed) lets it go to whatever the server proves (conn.guard.proof: what to pin)."""
    where = socket or f"{host}:{port}"
    try:
        conn = ReusedTLSConnection(
            pin=pin, trust_new=trust_new,
            host=host or None, port=port, unix_socket=socket or None, user=user, password=password,
            connect_timeout=connect_timeout, read_timeout=read_timeout, write_timeout=read_timeout,
            autocommit=True, charset="utf8mb4", **tls.connect_args(),
        )
    except pymysql.MySQLError as exc:
        code = exc.args[0] if exc.args and isinstance(exc.args[0], int) else None
        raise ConnectError(describe_error(exc, where, user), code) from None
    except (OSError, ValueError) as exc:  # a CA, certificate or key file that cannot be read or used
        raise ConnectError(f"{where}: TLS settings cannot be used: {exc}") from None
    if guards:
        apply_session_guards(conn)
    return conn


def connect(server) -> pymysql.Connection:
    """Open a guarded connection to a servers.models.Server."""
    return open_connection(host=server.host, port=server.port, socket=server.socket,
                           user=server.user, password=server.password, tls=TLS.of(server), pin=Pin.of(server))


def apply_session_guards(conn: pymysql.Connection) -> None:
    """One SET of the guards this server has (told by the handshake: no statement spent asking)."""
    flavor, version = handshake_version(conn.server_version or "")
    guards = [sql for sql, since in SESSION_GUARDS if since is None or version >= since.get(flavor, (99,))]
    with conn.cursor() as cur:
        try:
            cur.execute("SET SESSION " + ", ".join(guards))
        except pymysql.MySQLError:
            set_one_by_one(cur, guards)  # a build without one of them: keep the others


def set_one_by_one(cur, guards: list[str]) -> None:
    for sql in guards:
        try:
            cur.execute("SET SESSION " + sql)
        except pymysql.MySQLError:
            pass  # this server lacks the variable


def handshake_version(text: str) -> tuple[str, tuple[int, int, int]]:
    """The server's flavor and version from its handshake string ("5.5.5-10.11.6-MariaDB-0+deb12u1")."""
    flavor = "mariadb" if "mariadb" in text.lower() else "mysql"
    if flavor == "mariadb" and text.startswith(MARIADB_HANDSHAKE_PREFIX):
        text = text[len(MARIADB_HANDSHAKE_PREFIX):]
    return flavor, parse_version(text)


CR_SSL_CONNECTION_ERROR = 2026  # PyMySQL's code when TLS is required and the handshake offers none


def describe_error(exc: Exception, where: str, user: str) -> str:
    code = exc.args[0] if exc.args and isinstance(exc.args[0], int) else None
    if code == 1045:
        return f"{where}: access denied for user '{user}' (wrong password or user not allowed from this host)"
    if code == CR_SSL_CONNECTION_ERROR and "doesn't support" in str(exc.args[-1]):
        return (f"{where}: TLS mode requires TLS and the server offers none (have_ssl is not YES): turn it on in its "
                "option file (ssl_cert, ssl_key, then restart it), or set this server's TLS mode to preferred")
    if code in (2003, 2002) and any(word in str(exc.args[-1]) for word in ("SSL", "certificate")):
        return f"{where}: TLS handshake failed (see the server's TLS mode and CA file): {exc.args[-1]}"
    if code in (2003, 2002):
        return f"{where}: cannot connect (server down, wrong host/port, or firewall): {exc.args[-1]}"
    if code == 2013:
        return f"{where}: connection lost or timed out waiting for the server to answer"
    return f"{where}: {exc.args[-1] if exc.args else exc}"


@lru_cache(maxsize=1024)  # every poll makes its Target of the stored version text: the same few texts
def parse_version(text: str) -> tuple[int, int, int]:
    match = re.match(r"(\d+)\.(\d+)\.(\d+)", text)
    if not match:
        return (0, 0, 0)
    major, minor, patch = (int(x) for x in match.groups())
    return (major, minor, patch)


def detect(conn: pymysql.Connection) -> ServerInfo:
    version, comment, pfs = read_identity(conn)
    flavor = "mariadb" if "mariadb" in f"{version} {comment}".lower() else "mysql"
    version_tuple, performance_schema = parse_version(version), bool(int(pfs))
    return ServerInfo(flavor, version, version_tuple, performance_schema,
                      *transactions.basis(conn, flavor, version_tuple, performance_schema))


def read_identity(conn: pymysql.Connection) -> tuple:
    """VERSION(), @@version_comment, @@performance_schema (0 where the variable does not exist)."""
    with conn.cursor() as cur:
        try:
            cur.execute(IDENTITY_SQL)
        except pymysql.MySQLError as exc:
            if not exc.args or exc.args[0] != UNKNOWN_SYSTEM_VARIABLE:
                raise
            cur.execute(IDENTITY_SQL.replace("@@performance_schema", "0"))  # before MySQL 5.5.3: no such thing
        return cur.fetchone()
