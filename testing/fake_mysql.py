"""A fake MySQL server that asks clients for their password in clear text (mysql_clear_password).

It speaks just enough of the protocol for PyMySQL: the v10 handshake, then an
auth switch request to mysql_clear_password; whatever the client answers is kept
in `received` and the connection is dropped (the attacker has what it came for).
"""

import socketserver
import ssl
import struct
import threading
from collections.abc import Iterator
from contextlib import contextmanager

# Capabilities: LONG_PASSWORD, CONNECT_WITH_DB, PROTOCOL_41, SECURE_CONNECTION, PLUGIN_AUTH,
# PLUGIN_AUTH_LENENC_CLIENT_DATA. No SSL: a client in "preferred" mode goes on in clear text.
CAPABILITIES = 1 | 8 | 512 | 32768 | (1 << 19) | (1 << 21)
CLIENT_SSL = 2048  # offered when the server has a certificate
AUTOCOMMIT = 2  # server status flag


def packet(seq: int, payload: bytes) -> bytes:
    return struct.pack("<I", len(payload))[:3] + bytes([seq & 0xFF]) + payload


def handshake(capabilities: int) -> bytes:
    salt = b"abcdefghijklmnopqrst"
    return (b"\x0a" + b"8.0.99-fake\x00" + struct.pack("<I", 7) + salt[:8] + b"\x00"
            + struct.pack("<H", capabilities & 0xFFFF) + b"\x21" + struct.pack("<H", AUTOCOMMIT)
            + struct.pack("<H", capabilities >> 16) + bytes([len(salt) + 1]) + b"\x00" * 10
            + salt[8:] + b"\x00" + b"mysql_native_password\x00")


class Handler(socketserver.BaseRequestHandler):
    def read_packet(self) -> tuple[int, bytes] | None:
        header = self.read_exactly(4)
        if header is None:
            return None
        length = int.from_bytes(header[:3], "little")
        return header[3], self.read_exactly(length) or b""

    def read_exactly(self, n: int) -> bytes | None:
        data = b""
        while len(data) < n:
            chunk = self.request.recv(n - len(data))
            if not chunk:
                return None
            data += chunk
        return data

    def handle(self) -> None:
        self.server.connections += 1
        tls = self.server.tls
        self.request.sendall(packet(0, handshake(CAPABILITIES | (CLIENT_SSL if tls else 0))))
        response = self.read_packet()  # the client's handshake response, or its request for TLS
        if response is not None and tls and len(response[1]) == 32:
            self.request = tls.wrap_socket(self.request, server_side=True)
            response = self.read_packet()
        if response is None:
            return
        self.request.sendall(packet(response[0] + 1, b"\xfe" + b"mysql_clear_password\x00"))
        answer = self.read_packet()
        if answer is None:
            return  # the client refused and hung up: nothing learnt
        self.server.received.append(answer[1])


class FakeServer(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, tls: ssl.SSLContext | None = None):
        super().__init__(("127.0.0.1", 0), Handler)
        self.tls = tls  # a server-side context: TLS offered, with its certificate
        self.received: list[bytes] = []
        self.connections = 0

    @property
    def port(self) -> int:
        return self.server_address[1]

    def heard(self, secret: str) -> bool:
        """Did any client send this secret?"""
        return any(secret.encode() in data for data in self.received)


@contextmanager
def fake_clear_text_server(cert: str = "", key: str = "") -> Iterator[FakeServer]:
    """The fake server; with a certificate and key it offers TLS first."""
    tls = None
    if cert:
        tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        tls.load_cert_chain(cert, key)
    server = FakeServer(tls)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
