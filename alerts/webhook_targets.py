"""Where a webhook may be sent: never to a link-local, unspecified or multicast address, nor to a cloud
metadata service (an operator's rule must not read the instance's credentials: blind SSRF): the rules of
servers.address_rules, which a server's node_exporter URL keeps too.

Checked when a rule is saved (its host, and what it resolves to then) and again at every call, on the
addresses the name resolves to at that moment, which are the ones connected to (DNS may have changed since).
Private and loopback networks are allowed (internal chat relays) unless WEBHOOK_PRIVATE_NETWORKS is off.
"""

import socket
import urllib.request

from django.conf import settings

from servers import address_rules
from servers.address_rules import IP, checked_connections, connect_to, embedded_ipv4, resolved


class RefusedTarget(Exception):
    """Not an OSError: urllib would report it as an unreachable receiver, to be tried again."""


def address_refusal(ip: IP) -> str:
    """Why a webhook may not be sent to this address; "" where it may: servers.address_rules' refusals, and
    private and loopback networks where WEBHOOK_PRIVATE_NETWORKS is off."""
    found = address_rules.address_refusal(ip)
    ip = embedded_ipv4(ip)
    if not found and not settings.WEBHOOK_PRIVATE_NETWORKS and (ip.is_private or ip.is_loopback):
        return f"{ip} is a private or loopback address, which WEBHOOK_PRIVATE_NETWORKS=0 refuses"
    return found


def refusal(host: str, infos: list[tuple]) -> str:
    """Why the host, or any address it resolves to, may not be called; "" where it may."""
    found = address_rules.refusal(host, infos, address_refusal)
    return f"webhook refused: {found}" if found else ""


def url_refusal(url: str) -> str:
    """refusal() of the URL's host as it resolves now: when a rule is saved, before a call and before a redirect
    is followed (through a proxy, which resolves the name itself, the connection's own check sees only the
    proxy; a name the proxy resolves differently is beyond our reach). A name that does not resolve
    here, or a URL that is not one, is left to the connection and the URL's other checks."""
    found = address_rules.url_refusal(url, address_refusal)
    return f"webhook refused: {found}" if found else ""


def checked_connection(address: tuple[str, int], timeout: float | None = None,
                       source_address: tuple[str, int] | None = None) -> socket.socket:
    """socket.create_connection to the addresses the host resolves to now, once every one is allowed."""
    host, port = address
    infos = resolved(host, port)
    why = refusal(host, infos)
    if why:
        raise RefusedTarget(why)
    return connect_to(host, infos, timeout, source_address)


CheckedHTTPConnection, CheckedHTTPSConnection = checked_connections(checked_connection)


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
