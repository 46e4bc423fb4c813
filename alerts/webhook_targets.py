"""Where a webhook may be sent: never to a link-local, unspecified or multicast address, nor to a cloud
metadata service (an operator's rule must not read the instance's credentials: blind SSRF).

Checked when a rule is saved (its host, and what it resolves to then) and again at every call, on the
addresses the name resolves to at that moment, which are the ones connected to (DNS may have changed since).
Private and loopback networks are allowed (internal chat relays) unless WEBHOOK_PRIVATE_NETWORKS is off.
"""

import http.client
import ipaddress
import socket
import urllib.request
from urllib.parse import urlsplit

from django.conf import settings

IP = ipaddress.IPv4Address | ipaddress.IPv6Address
METADATA_NAMES = frozenset({"metadata", "metadata.google.internal", "metadata.goog", "instance-data",
                            "instance-data.ec2.internal", "metadata.azure.internal"})
# Metadata services outside link-local: AWS's IPv6 one (a unique-local address), Alibaba's, Oracle's.
METADATA_ADDRESSES = frozenset(ipaddress.ip_address(a) for a in ("fd00:ec2::254", "100.100.100.200", "192.0.0.192"))
THIS_NETWORK = ipaddress.ip_network("0.0.0.0/8")  # 0.x.x.x: Linux connects 0.0.0.0 to this very host
# IPv6 forms that carry an IPv4 address a gateway may reach: NAT64's well-known prefix, IPv4-compatible (::a.b.c.d).
NAT64 = ipaddress.ip_network("64:ff9b::/96")
IPV4_COMPATIBLE = ipaddress.ip_network("::/96")


class RefusedTarget(Exception):
    """Not an OSError: urllib would report it as an unreachable receiver, to be tried again."""


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
    """Why a webhook may not be sent to this address; "" where it may."""
    ip = embedded_ipv4(ip)
    if ip in METADATA_ADDRESSES:
        return f"{ip} is a cloud metadata service"
    if ip.is_link_local:
        return f"{ip} is link-local (where cloud metadata services answer)"
    if ip.is_unspecified or (isinstance(ip, ipaddress.IPv4Address) and ip in THIS_NETWORK):
        return f"{ip} is an unspecified address"
    if ip.is_multicast:
        return f"{ip} is a multicast address"
    if not settings.WEBHOOK_PRIVATE_NETWORKS and (ip.is_private or ip.is_loopback):
        return f"{ip} is a private or loopback address, which WEBHOOK_PRIVATE_NETWORKS=0 refuses"
    return ""


def name_refusal(host: str) -> str:
    name = host.lower().rstrip(".")
    return f"{host} is a cloud metadata service" if name in METADATA_NAMES else ""


def resolved(host: str, port: int) -> list[tuple]:
    """getaddrinfo's TCP entries for the host (an address is itself)."""
    return socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)


def refusal(host: str, infos: list[tuple]) -> str:
    """Why the host, or any address it resolves to, may not be called; "" where it may."""
    found = name_refusal(host)
    for info in infos:
        found = found or address_refusal(ipaddress.ip_address(info[4][0].split("%")[0]))
    return f"webhook refused: {found}" if found else ""


def url_refusal(url: str) -> str:
    """refusal() of the URL's host as it resolves now: when a rule is saved, before a call and before a redirect
    is followed (through a proxy, which resolves the name itself, the connection's own check sees only the
    proxy; a name the proxy resolves differently is beyond our reach). A name that does not resolve
    here, or a URL that is not one, is left to the connection and the URL's other checks."""
    try:
        parts = urlsplit(url)
        host, port = parts.hostname, parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        return ""
    if not host:
        return ""
    try:
        infos = resolved(host, port)
    except (OSError, UnicodeError):
        infos = []
    return refusal(host, infos)


def checked_connection(address: tuple[str, int], timeout: float | None = None,
                       source_address: tuple[str, int] | None = None) -> socket.socket:
    """socket.create_connection to the addresses the host resolves to now, once every one is allowed."""
    host, port = address
    infos = resolved(host, port)
    why = refusal(host, infos)
    if why:
        raise RefusedTarget(why)
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


class CheckedHTTPConnection(http.client.HTTPConnection):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # http.client's seam for the socket (HTTPS wraps what it returns): the connection goes to the address
        # that was checked, not to one a second lookup could give.
        self._create_connection = checked_connection


class CheckedHTTPSConnection(http.client.HTTPSConnection):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._create_connection = checked_connection


class CheckedHTTPHandler(urllib.request.HTTPHandler):
    def http_open(self, req):
        return self.do_open(CheckedHTTPConnection, req)


class CheckedHTTPSHandler(urllib.request.HTTPSHandler):
    def https_open(self, req):
        return self.do_open(CheckedHTTPSConnection, req, context=self._context)


class CheckedRedirectHandler(urllib.request.HTTPRedirectHandler):
    """A redirect's target is checked before it is followed: through a proxy, the connection's own check sees
    only the proxy, which would fetch wherever the receiver points."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        why = url_refusal(newurl)
        if why:
            raise RefusedTarget(why)
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def opener(proxies: dict[str, str] | None = None) -> urllib.request.OpenerDirector:
    """Every connection of a call goes through the check, and every redirect's target; proxies as the
    environment gives them (http_proxy, ...), or as given."""
    return urllib.request.build_opener(urllib.request.ProxyHandler(proxies), CheckedHTTPHandler,
                                       CheckedHTTPSHandler, CheckedRedirectHandler)


OPENER = opener()
