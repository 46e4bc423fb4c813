"""A node_exporter URL at an IPv6 address with no port is read at that address, port 80.

Before, http.client took the address's last group for a port ("::1": host ":", port 1): the fetch failed with
"the answer is not HTTP: is another service listening on that port?", though nothing had been asked."""

from collectors.http_fetch import FetchError, HttpPool


def test_an_ipv6_url_without_a_port_is_asked_at_port_80():
    try:
        HttpPool().fetch(1, "http://[::1]/metrics")  # nothing listens on [::1]:80 here
    except FetchError as exc:
        assert str(exc) == ("http://[::1]/metrics: connection refused: is node_exporter running and listening on "
                            "that address?")
    else:
        raise AssertionError("something answered on [::1]:80")
