"""Reading an HTTP source (node_exporter): one kept-alive connection per server, short timeouts, a capped body.

Like the MySQL pool, a poll in steady state opens nothing: the agent's answer is the only cost.
"""

import base64
import http.client
import socket
import threading
import time
from dataclasses import dataclass
from http import HTTPStatus
from urllib.parse import urlsplit

from collectors.connection import CONNECT_TIMEOUT, READ_TIMEOUT
from servers.address_rules import checked_connections, connect_to, name_refusal, refusal, resolved

MAX_BODY = 8 * 1024 * 1024  # bytes: a full node_exporter answer on a large host is ~1 MB; more is not an exporter
DEADLINE = 10.0  # seconds for the whole answer: a server that trickles bytes must not hold the poll
CHUNK = 256 * 1024


class FetchError(Exception):
    """The URL did not give a usable answer; the message says what happened, for the server page."""


class Refused(FetchError):
    """HTTP 400: the agent refused the request as asked (e.g. a collect[] filter naming a disabled collector)."""


class RefusedAddress(FetchError):
    """The URL's host is, or resolves to, an address no URL may call (servers.address_rules)."""


@dataclass(frozen=True)
class Answer:
    url: str
    text: str
    content_type: str
    # Epoch seconds its headers arrived: the agent gathers its metrics before it answers, so this is when the
    # counters were read, not the end of a slow body or of our parse (a rate's interval is between two of these).
    at: float | None = None


@dataclass(frozen=True)
class Address:
    scheme: str
    host: str
    port: int | None
    path: str
    auth: str  # the Authorization header, from user:password@ in the URL

    @classmethod
    def parse(cls, url: str) -> "Address":
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise FetchError(f"{url!r} is not an http:// or https:// URL")
        auth = ""
        if parts.username:
            pair = f"{parts.username}:{parts.password or ''}".encode()
            auth = "Basic " + base64.b64encode(pair).decode()
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        return cls(parts.scheme, parts.hostname, parts.port, path, auth)

    def connect(self) -> http.client.HTTPConnection:
        kind = CheckedHTTPSConnection if self.scheme == "https" else CheckedHTTPConnection
        # With no port, http.client reads a bare IPv6 address's last group as one ("::1": host ":", port 1).
        bare_ipv6 = ":" in self.host and self.port is None
        conn = kind(f"[{self.host}]" if bare_ipv6 else self.host, self.port, timeout=CONNECT_TIMEOUT)
        conn.connect()
        conn.sock.settimeout(READ_TIMEOUT)
        return conn


def checked_connection(address: tuple[str, int], timeout: float | None = None,
                       source_address: tuple[str, int] | None = None) -> socket.socket:
    host, port = address
    why = name_refusal(host)  # before the lookup: a metadata name resolves only where it would answer
    infos = [] if why else resolved(host, port)
    why = why or refusal(host, infos)
    if why:
        raise RefusedAddress(f"node_exporter URL refused: {why}")
    return connect_to(host, infos, timeout, source_address)


CheckedHTTPConnection, CheckedHTTPSConnection = checked_connections(checked_connection)


class HttpPool:
    """One connection per (server, host) kept open between polls; URLs the agent refused are remembered."""

    def __init__(self):
        self._conns: dict[tuple[int, str, str, int | None], http.client.HTTPConnection] = {}
        self._lock = threading.Lock()
        self.refused: set[str] = set()
        self.connects = 0

    def fetch(self, server_id: int, url: str) -> Answer:
        address = Address.parse(url)
        key = (server_id, address.scheme, address.host, address.port)
        with self._lock:
            conn = self._conns.pop(key, None)
        reused = conn is not None
        try:
            if conn is None:
                conn = self._open(address)
            answer = request(conn, address, url)
        except (OSError, http.client.HTTPException) as exc:
            close_quietly(conn)
            # The agent closed our idle connection (restart, keep-alive timeout): once more, on a new one.
            if reused and not isinstance(exc, TimeoutError):
                return self.fetch(server_id, url)
            raise FetchError(f"{url}: {describe(exc)}") from exc
        except FetchError:
            close_quietly(conn)
            raise
        with self._lock:
            self._conns[key] = conn
        return answer

    def _open(self, address: Address) -> http.client.HTTPConnection:
        self.connects += 1
        return address.connect()

    def close_all(self) -> None:
        with self._lock:
            conns, self._conns = list(self._conns.values()), {}
        for conn in conns:
            close_quietly(conn)


def request(conn: http.client.HTTPConnection, address: Address, url: str) -> Answer:
    headers = {"Accept": "text/plain", "Accept-Encoding": "identity"}
    if address.auth:
        headers["Authorization"] = address.auth
    conn.request("GET", address.path, headers=headers)
    response = conn.getresponse()
    at = time.time()
    if response.status != 200:
        response.read(4096)
        error = Refused if response.status == 400 else FetchError
        raise error(f"{url}: answered HTTP {response.status} {status_phrase(response.status)}".rstrip())
    body = read_capped(response, url)
    return Answer(url, body.decode("utf-8", errors="replace"), response.getheader("Content-Type", ""), at)


def read_capped(response: http.client.HTTPResponse, url: str) -> bytes:
    too_big = f"{url}: the answer is larger than {MAX_BODY // (1024 * 1024)} MiB, not a node_exporter's metrics"
    length = response.getheader("Content-Length")
    if length and length.isdigit() and int(length) > MAX_BODY:
        raise FetchError(too_big)
    chunks, size, deadline = [], 0, time.monotonic() + DEADLINE
    while chunk := response.read(CHUNK):
        size += len(chunk)
        if size > MAX_BODY:
            raise FetchError(too_big)
        if time.monotonic() > deadline:
            raise FetchError(f"{url}: the answer took more than {DEADLINE:.0f} s")
        chunks.append(chunk)
    return b"".join(chunks)


def describe(exc: Exception) -> str:
    """Why a fetch failed, in words of our own: never what the other end sent (another service's banner)."""
    if isinstance(exc, TimeoutError):
        return "timed out (no answer within the read timeout)"
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused: is node_exporter running and listening on that address?"
    if isinstance(exc, http.client.HTTPException):
        return "the answer is not HTTP: is another service listening on that port?"
    return f"{type(exc).__name__}: {exc.strerror}" if isinstance(exc, OSError) and exc.strerror else type(exc).__name__


def status_phrase(status: int) -> str:
    """The standard reason phrase of a status: the server's own may say anything."""
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return ""


def close_quietly(conn: http.client.HTTPConnection | None) -> None:
    if conn is not None:
        try:
            conn.close()
        except Exception:
            pass  # already broken


HTTP_POOL = HttpPool()
