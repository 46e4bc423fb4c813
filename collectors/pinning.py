"""What a monitored server proved, pinned as SSH pins host keys: the stored password goes to nobody else.

A server proves something when it sends its TLS certificate (TLS modes preferred
and required: not checked against a CA) or, without TLS, the RSA public key a
password is encrypted with (sha256_password, caching_sha2_password's full
authentication). Both reveal the password to whoever holds the key: in clear
inside that TLS, or decryptable with that RSA key. So:

- a password typed by the user (the form, `addserver`) may go to what the server
  proves (trust on first use); a successful test then pins that proof with it;
- the stored password (polls, "Test connection" with nothing typed) only goes to a
  server proving the pinned certificate or key again: a different one, or TLS gone
  where a certificate was pinned, ends the connection before any byte of the
  password is sent, saying what changed; the clear-text and RSA exchanges are
  refused when nothing is pinned;
- a certificate verified against a CA (verify-ca, verify-identity) and a unix
  socket need no pin.

The exchanges of the two RSA plugins are PyMySQL's own (pymysql._auth), with these
checks where the password would leave; PyMySQL calls them through its auth plugin map.
"""

import hashlib
from dataclasses import dataclass

from cryptography.hazmat.primitives import serialization
from pymysql import _auth
from pymysql.constants import CR
from pymysql.err import OperationalError

TLS_CERT, RSA_KEY = "tls", "rsa"
AGAIN = "type the password again (Edit) and test: the new one is then pinned instead"


@dataclass(frozen=True)
class Pin:
    """A pinned (or just proved) certificate or key: its kind, SHA-256, and the RSA key itself (PEM)."""

    kind: str = ""
    sha256: str = ""
    key: str = ""

    @classmethod
    def of(cls, server) -> "Pin":
        return cls(server.pinned_kind, server.pinned_sha256, server.pinned_key)

    def __bool__(self) -> bool:
        return bool(self.kind)

    def describe(self) -> str:
        if not self.kind:
            return "nothing"
        what = "TLS certificate" if self.kind == TLS_CERT else "RSA public key"
        return f"{what}, SHA-256 {self.sha256}"


NO_PIN = Pin()


def key_sha256(pem: bytes) -> str:
    """The SHA-256 of an RSA public key's DER (its PEM's line breaks and headers do not count)."""
    try:
        der = serialization.load_pem_public_key(pem).public_bytes(
            serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    except ValueError:
        der = pem
    return hashlib.sha256(der).hexdigest()


def refused(text: str) -> OperationalError:
    return OperationalError(CR.CR_AUTH_PLUGIN_ERR, text)


class Guard:
    """One connection's checks: what is pinned, whether a typed password may trust something new."""

    def __init__(self, pin: Pin, trust_new: bool) -> None:
        self.pin, self.trust_new = pin, trust_new
        self.proof = Pin()  # what this server proved (to pin after a successful test)
        self.proven = False  # TLS verified by a CA, a unix socket, or the pinned certificate again

    def local(self) -> None:
        self.proven = True

    def no_tls(self) -> None:
        """Before the first packet, when the session will not be TLS."""
        if self.pin.kind == TLS_CERT and not self.trust_new:
            raise refused(f"the server no longer offers TLS, but its certificate (SHA-256 {self.pin.sha256}) "
                          f"is pinned: the stored password is not sent; if the server really changed, {AGAIN}")

    def tls_established(self, cert_sha256: str, verified: bool, first_plugin: str) -> None:
        """Right after the TLS handshake, before any authentication byte."""
        if verified:
            self.proven = True
            return
        self.proof = Pin(TLS_CERT, cert_sha256)
        if self.trust_new:
            return
        if self.pin.kind == TLS_CERT and self.pin.sha256 == cert_sha256:
            self.proven = True
            return
        if self.pin:
            raise refused(f"the server's TLS certificate (SHA-256 {cert_sha256}) is not the pinned "
                          f"{self.pin.describe()}: someone else may answer at this address; the stored password "
                          f"is not sent. If the server really changed, {AGAIN}")
        if first_plugin == "sha256_password":  # its very next packet would carry the password
            self.clear_in_tls(first_plugin)

    def clear_in_tls(self, plugin: str) -> None:
        """The password, in clear inside TLS, is about to be sent."""
        if self.proven or self.trust_new:
            return
        raise refused(f"the server asks for the password itself ({plugin}) over TLS whose certificate is neither "
                      "verified (verify-ca, verify-identity) nor pinned: refused. To pin this server's certificate, "
                      "type the password (Edit) and test")

    def rsa_key(self, pem: bytes) -> None:
        """The server's RSA public key arrived; the password would be encrypted with it next."""
        proof = Pin(RSA_KEY, key_sha256(pem), pem.decode("ascii", "replace"))
        self.proof = proof
        if self.trust_new or self.proven or (self.pin.kind == RSA_KEY and self.pin.sha256 == proof.sha256):
            return
        if self.pin.kind == RSA_KEY:
            raise refused(f"the server's RSA public key (SHA-256 {proof.sha256}) is not the pinned one "
                          f"(SHA-256 {self.pin.sha256}): someone else may answer at this address; the stored "
                          f"password is not sent. If the server really changed, {AGAIN}")
        raise refused("the server asks for the password encrypted with its RSA public key, and no key is pinned "
                      "(nor TLS verified): refused. To pin this server's key, type the password (Edit) and test")


class CachingSha2:
    """caching_sha2_password (pymysql._auth.caching_sha2_password_auth), checked before full authentication."""

    def __init__(self, conn) -> None:
        self.conn = conn

    def authenticate(self, pkt):
        conn = self.conn
        if not conn.password:
            return _auth._roundtrip(conn, b"")
        if pkt.is_auth_switch_request():
            conn.salt = pkt.read_all().removesuffix(b"\0")
            pkt = _auth._roundtrip(conn, _auth.scramble_caching_sha2(conn.password, conn.salt))
        if not pkt.is_extra_auth_data():
            raise OperationalError(f"caching sha2: unknown packet for fast auth: {pkt._data[:1]}")
        pkt.advance(1)
        result = pkt.read_uint8()
        if result == 3:  # fast path: the scramble sufficed, the password was not sent
            pkt = conn._read_packet()
            pkt.check_error()
            return pkt
        if result != 4:
            raise OperationalError(f"caching sha2: unknown result for fast auth: {result}")
        if conn._secure:
            conn.guard.clear_in_tls("caching_sha2_password full authentication")
            return _auth._roundtrip(conn, conn.password + b"\0")
        pkt = _auth._roundtrip(conn, b"\x02")  # its public key, always asked: it must match the pin
        if not pkt.is_extra_auth_data():
            raise OperationalError(f"caching sha2: unknown packet for public key: {pkt._data[:1]}")
        return send_encrypted(conn, pkt._data[1:])


class Sha256:
    """sha256_password (pymysql._auth.sha256_password_auth), checked before the password leaves."""

    def __init__(self, conn) -> None:
        self.conn = conn

    def authenticate(self, pkt):
        conn = self.conn
        if conn._secure:
            conn.guard.clear_in_tls("sha256_password")
            return _auth._roundtrip(conn, conn.password + b"\0")
        if pkt.is_auth_switch_request():
            conn.salt = pkt.read_all().removesuffix(b"\0")
            if not conn.password:
                return _auth._roundtrip(conn, b"")
            pkt = _auth._roundtrip(conn, b"\1")  # its public key
        if not pkt.is_extra_auth_data():
            raise OperationalError(f"sha256: unknown packet for public key: {pkt._data[:1]}")
        return send_encrypted(conn, pkt._data[1:])


def send_encrypted(conn, pem: bytes):
    conn.guard.rsa_key(pem)
    conn.server_public_key = pem
    return _auth._roundtrip(conn, _auth.sha2_rsa_encrypt(conn.password, conn.salt, pem))


PLUGINS = {"caching_sha2_password": CachingSha2, "sha256_password": Sha256}
