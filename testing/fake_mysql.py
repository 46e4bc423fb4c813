"""A fake MySQL server that tries to get the client's password: the impostor at a stored server's address.

It speaks just enough of the protocol for PyMySQL: the v10 handshake (offering TLS
when it has a certificate), then the authentication plugin it is told to use:

mysql_clear_password   asks for the password in clear text
mysql_old_password     the pre-4.1 scheme (PyMySQL has no implementation of it)
sha256_password        the password in clear inside TLS, else RSA-encrypted with the fake's own key
caching_sha2_password  "full authentication": as sha256_password, after the fast-path scramble

The plugin is either the handshake's default (`first_plugin`) or asked for with an
auth switch request. Whatever password it learns (decrypting with its own RSA
key) is kept in `received`. With `accept` set to that password it answers OK and
then OK to every statement (enough for a connection to open); otherwise it drops
the connection (the attacker has what it came for).
"""

import socketserver
import ssl
import struct
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

# Capabilities: LONG_PASSWORD, CONNECT_WITH_DB, PROTOCOL_41, SECURE_CONNECTION, PLUGIN_AUTH,
# PLUGIN_AUTH_LENENC_CLIENT_DATA. No SSL: a client in "preferred" mode goes on in clear text.
CAPABILITIES = 1 | 8 | 512 | 32768 | (1 << 19) | (1 << 21)
CLIENT_SSL = 2048  # offered when the server has a certificate
AUTOCOMMIT = 2  # server status flag
SALT = b"abcdefghijklmnopqrst"
COM_QUIT = 1
OK = b"\x00\x00\x00" + struct.pack("<H", AUTOCOMMIT) + b"\x00\x00"


def packet(seq: int, payload: bytes) -> bytes:
    return struct.pack("<I", len(payload))[:3] + bytes([seq & 0xFF]) + payload


def handshake(capabilities: int, plugin: str = "mysql_native_password") -> bytes:
    return (b"\x0a" + b"8.0.99-fake\x00" + struct.pack("<I", 7) + SALT[:8] + b"\x00"
            + struct.pack("<H", capabilities & 0xFFFF) + b"\x21" + struct.pack("<H", AUTOCOMMIT)
            + struct.pack("<H", capabilities >> 16) + bytes([len(SALT) + 1]) + b"\x00" * 10
            + SALT[8:] + b"\x00" + plugin.encode() + b"\x00")


def auth_response(payload: bytes) -> bytes:
    """The auth data of a handshake response (lenenc length after flags, charset, filler and user)."""
    user_end = payload.index(b"\x00", 32)
    length = payload[user_end + 1]
    return payload[user_end + 2:user_end + 2 + length]


class Handler(socketserver.BaseRequestHandler):
    server: "FakeServer"
    seq = 0

    def read_packet(self) -> bytes | None:
        header = self.read_exactly(4)
        if header is None:
            return None
        self.seq = header[3]
        return self.read_exactly(int.from_bytes(header[:3], "little")) or b""

    def send(self, payload: bytes) -> None:
        self.seq += 1
        self.request.sendall(packet(self.seq, payload))

    def read_exactly(self, n: int) -> bytes | None:
        data = b""
        while len(data) < n:
            try:
                chunk = self.request.recv(n - len(data))
            except (OSError, ssl.SSLError):
                return None
            if not chunk:
                return None
            data += chunk
        return data

    def handle(self) -> None:
        server = self.server
        server.connections += 1
        self.seq = -1
        self.send(handshake(CAPABILITIES | (CLIENT_SSL if server.tls else 0), server.first_plugin))
        response = self.read_packet()  # the client's handshake response, or its request for TLS
        if response is not None and server.tls and len(response) == 32:
            self.request = server.tls.wrap_socket(self.request, server_side=True)
            response = self.read_packet()
        if response is None:
            return
        answer: bytes | None
        if server.first_plugin == server.plugin:
            answer = auth_response(response)
        else:
            self.send(b"\xfe" + server.plugin.encode() + b"\x00" + SALT + b"\x00")
            answer = self.read_packet()
        learnt = self.exchange(answer) if answer is not None else None
        if learnt is None:
            return  # the client refused and hung up: nothing learnt
        server.received.append(learnt)
        if server.accept and learnt == server.accept.encode():
            self.serve_statements()

    def exchange(self, first: bytes) -> bytes | None:
        """The rest of the plugin's exchange, from the client's first answer; the password learnt."""
        answer: bytes | None = first
        plugin = self.server.plugin
        if plugin == "caching_sha2_password":
            self.send(b"\x01\x04")  # no cached hash: full authentication
            answer = self.read_packet()
            if answer == b"\x02":  # the client asks for our public key
                self.send(b"\x01" + self.server.public_pem)
                answer = self.read_packet()
        elif plugin == "sha256_password" and answer == b"\x01":
            self.send(b"\x01" + self.server.public_pem)
            answer = self.read_packet()
        if answer is None:
            return None
        if plugin in ("caching_sha2_password", "sha256_password") and not answer.endswith(b"\x00"):
            return self.server.decrypt(answer)
        return answer.rstrip(b"\x00")

    def serve_statements(self) -> None:
        self.send(OK)
        while (command := self.read_packet()) and command[0] != COM_QUIT:
            self.seq = 0
            self.send(OK)


class FakeServer(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, tls: ssl.SSLContext | None = None, plugin: str = "mysql_clear_password",
                 first_plugin: str = "mysql_native_password", accept: str = ""):
        super().__init__(("127.0.0.1", 0), Handler)
        self.tls = tls  # a server-side context: TLS offered, with its certificate
        self.plugin, self.first_plugin, self.accept = plugin, first_plugin, accept
        self.received: list[bytes] = []
        self.connections = 0
        self.rsa = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.public_pem = self.rsa.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)

    @property
    def port(self) -> int:
        return self.server_address[1]

    def heard(self, secret: str) -> bool:
        """Did any client send this secret?"""
        return any(secret.encode() in data for data in self.received)

    def decrypt(self, data: bytes) -> bytes | None:
        """The password of an RSA exchange (OAEP, XORed with the salt); None if not for our key."""
        try:
            plain = self.rsa.decrypt(data, padding.OAEP(padding.MGF1(hashes.SHA1()), hashes.SHA1(), None))
        except ValueError:
            return b""  # encrypted for another key (a pinned one): nothing learnt
        return bytes(b ^ SALT[i % len(SALT)] for i, b in enumerate(plain)).rstrip(b"\x00")


@contextmanager
def fake_mysql_server(cert: str = "", key: str = "", **behaviour) -> Iterator[FakeServer]:
    """The fake server (FakeServer's keyword arguments); with a certificate and key it offers TLS first."""
    tls = None
    if cert:
        tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        tls.load_cert_chain(cert, key)
    server = FakeServer(tls, **behaviour)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def fake_clear_text_server(cert: str = "", key: str = ""):
    """The impostor asking for mysql_clear_password."""
    return fake_mysql_server(cert, key, plugin="mysql_clear_password")
