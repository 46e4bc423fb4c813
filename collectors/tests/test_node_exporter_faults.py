"""A node_exporter URL that gives no usable answer: a clear failure of that source only, the SQL sources go on."""

from http.server import BaseHTTPRequestHandler

import pytest

from collectors.batch import poll_server
from collectors.http_fetch import MAX_BODY
from collectors.models import ServerHealth
from testing.http_agent import serving
from testing.mariadb import free_port

HTML = b"<!DOCTYPE html><html><head><title>Grafana</title></head><body>login</body></html>"
NOT_NODE = b"# TYPE up gauge\nup 1\nhttp_requests_total{code=\"200\"} 7\n"


class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        route = self.path.split("?")[0]
        if route == "/html":
            self.answer(HTML, "text/html; charset=utf-8")
        elif route == "/missing":
            self.answer(NOT_NODE, "text/plain; version=0.0.4")
        elif route == "/huge":  # no Content-Length: the cap must stop the read itself
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.end_headers()
            line = b'node_cpu_seconds_total{cpu="0",mode="user"} 1\n' * 20000
            for _ in range(MAX_BODY // len(line) + 2):
                self.wfile.write(line)
        else:
            self.send_error(404)

    def answer(self, body: bytes, content_type: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def bad_agent():
    with serving(Handler) as url:
        yield url


@pytest.mark.parametrize("path, says", [
    ("/html", "answered an HTML page, not Prometheus metrics"),
    ("/missing", "has no node_cpu_seconds_total series"),
    ("/huge", "larger than 8 MiB"),
    ("/nothing-here", "HTTP 404"),
])
def test_a_bad_answer_fails_that_source_only(make_server, mariadb, bad_agent, path, says):
    server = make_server(f"bad-agent{path.replace('/', '-')}", mariadb.port, node_exporter_url=bad_agent + path)
    result = poll_server(server.id)
    outcome = {s.name: s for s in result.sources}
    assert not outcome["node_exporter"].ok and says in outcome["node_exporter"].error
    assert server.name in outcome["node_exporter"].error
    assert result.ok and outcome["global_status"].ok and outcome["global_status"].sample is not None
    health = ServerHealth.objects.get(server=server)
    assert health.consecutive_failures == 0
    assert [name for name, _ in health.failing_sources] == ["node_exporter"]


def test_an_agent_that_does_not_answer_fails_the_source_and_says_so_on_the_servers_page(
        make_server, mariadb, client, admin_user):
    url = f"http://127.0.0.1:{free_port()}/metrics"
    server = make_server("agent-down", mariadb.port, node_exporter_url=url)
    result = poll_server(server.id)
    error = {s.name: s.error for s in result.sources}["node_exporter"]
    assert "connection refused" in error and url in error
    assert result.ok and ServerHealth.objects.get(server=server).sources["global_status"]["ok"]

    client.force_login(admin_user)
    page = client.get("/servers/").content.decode()
    assert "node_exporter failing" in page and "connection refused" in page


def test_a_url_removed_takes_its_failure_with_it(make_server, mariadb):
    server = make_server("agent-gone", mariadb.port, node_exporter_url=f"http://127.0.0.1:{free_port()}/metrics")
    poll_server(server.id)
    assert [name for name, _ in ServerHealth.objects.get(server=server).failing_sources] == ["node_exporter"]
    server.node_exporter_url = ""
    server.save()
    poll_server(server.id, only=["global_status"])
    health = ServerHealth.objects.get(server=server)
    assert health.failing_sources == [] and "node_exporter" not in health.sources
