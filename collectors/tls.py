"""TLS to monitored servers: the five modes of the mysql client, their contexts, and what a session used.

disabled         never TLS
preferred        TLS if the server offers it, certificate not checked (PyMySQL's default)
required         TLS or no connection, certificate not checked
verify-ca        TLS, the certificate must chain to the CA file (or the system store)
verify-identity  verify-ca, and the certificate must name the host we connected to
"""

import hashlib
import ssl
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from cryptography import x509

from servers.tls_modes import DISABLED, MODES, PREFERRED, REQUIRED, VERIFY_CA, VERIFY_IDENTITY, VERIFYING

__all__ = ["DISABLED", "MODES", "PREFERRED", "REQUIRED", "VERIFY_CA", "VERIFY_IDENTITY", "VERIFYING", "TLS"]



@dataclass(frozen=True)
class TLS:
    """A server's TLS settings; file paths are on the monitoring host."""

    mode: str = PREFERRED
    ca: str = ""
    cert: str = ""
    key: str = ""

    @classmethod
    def of(cls, server) -> "TLS":
        return cls(server.tls_mode or PREFERRED, server.tls_ca, server.tls_cert, server.tls_key)

    def connect_args(self) -> dict:
        """PyMySQL keyword arguments for this mode (preferred: none, PyMySQL's own default)."""
        if self.mode == DISABLED:
            return {"ssl_disabled": True}
        if self.mode == PREFERRED:
            return {}
        return {"ssl": context(self, *mtimes(self))}


DEFAULT = TLS()  # PyMySQL's own behaviour: TLS if offered, unverified


def mtimes(tls: TLS) -> tuple:
    """The files' modification times: a replaced CA or certificate gets a new context."""
    return tuple(Path(p).stat().st_mtime if p else 0 for p in (tls.ca, tls.cert, tls.key))


@lru_cache(maxsize=256)
def context(tls: TLS, *_mtimes: float) -> ssl.SSLContext:
    """One context per settings and file version (loading a CA store costs ~20 ms of CPU)."""
    if tls.mode in VERIFYING:
        ctx = ssl.create_default_context(cafile=tls.ca or None)
        ctx.check_hostname = tls.mode == VERIFY_IDENTITY
    else:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        ctx.check_hostname, ctx.verify_mode = False, ssl.CERT_NONE
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    if tls.cert:
        ctx.load_cert_chain(tls.cert, keyfile=tls.key or None)
    return ctx


def verified(sock) -> bool:
    """True when this socket is TLS and the peer's certificate was checked against a CA."""
    return isinstance(sock, ssl.SSLSocket) and sock.context.verify_mode == ssl.CERT_REQUIRED


def describe(sock, mode: str) -> str:
    """What a connection used, for "Test connection": protocol, certificate, whether it was verified."""
    if not isinstance(sock, ssl.SSLSocket):
        return "not encrypted (no TLS)"
    der = sock.getpeercert(binary_form=True)
    cipher = sock.cipher()
    text = f"{sock.version()} ({cipher[0] if cipher else 'no cipher'})"
    if der:
        cert = x509.load_der_x509_certificate(der)
        text += (f", server certificate {cert.subject.rfc4514_string()} issued by {cert.issuer.rfc4514_string()}"
                 f", SHA-256 {hashlib.sha256(der).hexdigest()}")
    if mode == VERIFY_IDENTITY:
        return text + ": verified against the CA, host name checked"
    if mode == VERIFY_CA:
        return text + ": verified against the CA (host name not checked)"
    return text + ": certificate NOT verified (anyone in the path could pose as the server)"
