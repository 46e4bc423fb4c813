"""A throw-away certificate authority for TLS tests, made with the `cryptography` package.

A CA, a server certificate for 127.0.0.1 (an IP address only: "localhost" does not
match it, which tests the host-name check), and a client certificate.
"""

import ipaddress
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import NameOID


@dataclass(frozen=True)
class Files:
    ca: Path
    server_cert: Path
    server_key: Path
    client_cert: Path
    client_key: Path

    def server_args(self) -> tuple[str, ...]:
        """mariadbd options serving TLS with these files."""
        return (f"--ssl-ca={self.ca}", f"--ssl-cert={self.server_cert}", f"--ssl-key={self.server_key}")


def _key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def _cert(subject: str, key, issuer: str, issuer_key, ca: bool = False, ip: str | None = None) -> x509.Certificate:
    now = datetime.now(UTC)
    builder = (x509.CertificateBuilder().subject_name(_name(subject)).issuer_name(_name(issuer))
               .public_key(key.public_key()).serial_number(x509.random_serial_number())
               .not_valid_before(now - timedelta(minutes=5)).not_valid_after(now + timedelta(days=1))
               .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
    if ca:
        builder = builder.add_extension(x509.KeyUsage(
            digital_signature=True, key_cert_sign=True, crl_sign=True, content_commitment=False,
            key_encipherment=False, data_encipherment=False, key_agreement=False,
            encipher_only=False, decipher_only=False), critical=True)
        builder = builder.add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
    else:
        builder = builder.add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer_key.public_key()), critical=False)
    if ip:
        builder = builder.add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address(ip))]),
                                        critical=False)
    return builder.sign(issuer_key, hashes.SHA256())


def _write(path: Path, cert: x509.Certificate | None = None, key=None) -> Path:
    if cert is not None:
        path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    else:
        path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    path.chmod(0o644)  # mariadbd may run as another user (mysql) and must read them
    return path


def make_ca(folder: Path, name: str = "SteadyState test CA") -> Files:
    """A CA and, signed by it, a server certificate for 127.0.0.1 and a client certificate."""
    folder.mkdir(parents=True, exist_ok=True)
    ca_key, server_key, client_key = _key(), _key(), _key()
    ca = _cert(name, ca_key, name, ca_key, ca=True)
    server = _cert("steadystate-test-mariadb", server_key, name, ca_key, ip="127.0.0.1")
    client = _cert("steady-client", client_key, name, ca_key)
    return Files(_write(folder / "ca.pem", ca), _write(folder / "server-cert.pem", server),
                 _write(folder / "server-key.pem", key=server_key), _write(folder / "client-cert.pem", client),
                 _write(folder / "client-key.pem", key=client_key))
