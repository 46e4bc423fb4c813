"""Test connection and the TLS file fields tell nothing about other services or the host's files."""

import socket
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest
from django import forms

from collectors.probe import CheckResult, check_node_exporter
from dashboards.server_form import readable_file
from testing.tls_certs import make_ca

BANNER = "SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3 secret-host-7"


@pytest.fixture
def banner_port():
    """A TCP service that greets with a banner and hangs up, as SSH or SMTP do."""
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def serve():
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            with conn:
                conn.sendall(BANNER.encode() + b"\r\n")
    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield listener.getsockname()[1]
    stop.set()
    thread.join()
    listener.close()


@pytest.fixture
def odd_http_port():
    """An HTTP service whose error answers carry a reason phrase of its own."""
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(404, "Not Found on internal-wiki.corp v3.2")
            self.end_headers()

        def log_message(self, *args):
            pass
    server = HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_port
    server.shutdown()


def test_a_node_exporter_url_on_another_service_does_not_echo_its_banner(banner_port):
    result = check_node_exporter(CheckResult("x"), f"http://127.0.0.1:{banner_port}/metrics")
    error = result.node_exporter_error
    assert error and "OpenSSH" not in error and "secret-host" not in error
    assert "the answer is not HTTP: is another service listening on that port?" in error, error


def test_an_http_service_s_own_reason_phrase_is_not_echoed(odd_http_port):
    result = check_node_exporter(CheckResult("x"), f"http://127.0.0.1:{odd_http_port}/metrics")
    assert "HTTP 404 Not Found" in result.node_exporter_error
    assert "internal-wiki" not in result.node_exporter_error


def test_tls_file_fields_answer_alike_for_missing_unreadable_and_other_files(tmp_path):
    secret = tmp_path / "shadow"
    secret.write_text("root:$y$j9T$...:19000:0:99999:7:::\n")
    messages = []
    for path in ("/no/such/file.pem", "/etc/passwd", str(secret), "/dev/zero", str(tmp_path), "/etc/\x00x"):
        with pytest.raises(forms.ValidationError) as refused:
            readable_file(path)
        messages.append(refused.value.messages[0].replace(path, "PATH"))
    assert len(set(messages)) == 1, messages
    assert "root:" not in messages[0]


def test_tls_file_fields_take_pem_files(tmp_path):
    files = make_ca(tmp_path)
    for path in (files.ca, files.client_cert, files.client_key):
        assert readable_file(f" {path} ") == str(path)
    assert readable_file("") == ""
