"""Addresses a URL typed into SteadyState may never make it call: link-local (where cloud metadata services
answer), unspecified, multicast, and the metadata services' own names and addresses (blind SSRF: an admin's URL
must not read the instance's credentials).

A webhook (alerts.webhook_targets) and a server's node_exporter URL (Server.node_exporter_url, read by
collectors.http_fetch) both refuse them: when the URL is saved (its host and what it resolves to then) and at every
call, on the addresses the name resolves to at that moment, the ones connected to. Private and loopback networks
are the caller's to allow: a node_exporter runs beside its database, on the private network.
"""

import http.client
import ipaddress
import socket
from collections.abc import Callable
from urllib.parse import urlsplit

from django.core.exceptions import ValidationError

IP = ipaddress.IPv4Address | ipaddress.IPv6Address
METADATA_NAMES = frozenset({"metadata", "metadata.google.internal", "metadata.goog", "instance-data",
                            "instance-data.ec2.internal", "metadata.azure.internal"})
# Metadata services outside link-local: AWS's IPv6 one (a unique-local address), Alibaba's, Oracle's.
METADATA_ADDRESSES = frozenset(ipaddress.ip_address(a) for a in ("fd00:ec2::254", "100.100.100.200", "192.0.0.192"))
THIS_NETWORK = ipaddress.ip_network("0.0.0.0/8")  # 0.x.x.x: Linux connects 0.0.0.0 to this very host
# IPv6 forms that carry an IPv4 address a gateway may reach: NAT64's well-known prefix, IPv4-compatible (::a.b.c.d).
NAT64 = ipaddress.ip_network("64:ff9b::/96")
IPV4_COMPATIBLE = ipaddress.ip_network("::/96")
AddressRule = Callable[[IP], str]  # why an address is refused, "" where it is not


def embedded_ipv4(ip: IP) -> IP:
    """The IPv4 address an IPv6 one carries (mapped, 6to4, NAT64, IPv4-compatible), else the address itself."""
    if not isinstance(ip, ipaddress.IPv6Address):
        return ip
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip in NAT64 or (ip in IPV4_COMPATIBLE and int(ip) > 1):  # :: and ::1 are IPv6's own
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return ip


def address_refusal(ip: IP) -> str:
    """Why no URL may be called at this address; "" where one may."""
    ip = embedded_ipv4(ip)
    if ip in METADATA_ADDRESSES:
        return f"{ip} is a cloud metadata service"
    if ip.is_link_local:
        return f"{ip} is link-local (where cloud metadata services answer)"
    if ip.is_unspecified or (isinstance(ip, ipaddress.IPv4Address) and ip in THIS_NETWORK):
        return f"{ip} is an unspecified address"
    if ip.is_multicast:
        return f"{ip} is a multicast address"
    return ""


def name_refusal(host: str) -> str:
    name = host.lower().rstrip(".")
    return f"{host} is a cloud metadata service" if name in METADATA_NAMES else ""


def resolved(host: str, port: int) -> list[tuple]:
    """getaddrinfo's TCP entries for the host (an address is itself)."""
    return socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)


def refusal(host: str, infos: list[tuple], rule: AddressRule = address_refusal) -> str:
    """Why the host, or any address it resolves to, may not be called; "" where it may."""
    found = name_refusal(host)
    for info in infos:
        found = found or rule(ipaddress.ip_address(info[4][0].split("%")[0]))
    return found


def url_refusal(url: str, rule: AddressRule = address_refusal) -> str:
    """refusal() of the URL's host as it resolves now. A name that does not resolve here, or a URL that is not
    one, is left to the connection and the URL's other checks."""
    try:
        parts = urlsplit(url)
        host, port = parts.hostname, parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        return ""
    if not host:
        return ""
    try:
        infos = resolved(host, port)
    except (OSError, ValueError):  # ValueError: a NUL in the name; UnicodeError: a label IDNA cannot encode
        infos = []
    return refusal(host, infos, rule)


def connect_to(host: str, infos: list[tuple], timeout: float | None = None,
               source_address: tuple[str, int] | None = None) -> socket.socket:
    """socket.create_connection to addresses already resolved (and checked): the connection goes to the address
    that was checked, not to one a second lookup could give."""
    last: OSError | None = None
    for family, kind, proto, _name, sockaddr in infos:
        sock = socket.socket(family, kind, proto)
        try:
            sock.settimeout(timeout)
            if source_address:
                sock.bind(source_address)
            sock.connect(sockaddr)
            return sock
        except OSError as exc:
            sock.close()
            last = exc
    raise last or OSError(f"{host} resolves to no address")


Connector = Callable[..., socket.socket]  # socket.create_connection's signature: (address, timeout, source_address)


def checked_connections(connect: Connector) -> tuple[type[http.client.HTTPConnection],
                                                      type[http.client.HTTPSConnection]]:
    """HTTP and HTTPS connection classes whose socket comes from `connect` (a check, then connect_to): http.client's
    seam for the socket (HTTPS wraps what it returns), so the address connected to is the one checked, whatever
    the URL's name resolves to now (a URL saved before the check, or DNS changed since)."""

    class Checked(http.client.HTTPConnection):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self._create_connection = connect

    class CheckedTLS(http.client.HTTPSConnection):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self._create_connection = connect

    return Checked, CheckedTLS


def agent_url_allowed(url: str) -> None:
    """The validator of Server.node_exporter_url: the form, the admin, `addserver` and a run file's import."""
    why = url_refusal(url)
    if why:
        raise ValidationError(f"node_exporter URL refused: {why}. Give the address of the database host's "
                              "node_exporter, e.g. http://db1:9100/metrics.")
