"""A local HTTP receiver for alert webhooks: records each POST, answers with the status it is told to."""

import json
import threading
from contextlib import contextmanager
from dataclasses import dataclass, field
from email.message import Message
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Received:
    headers: Message  # looked up without regard to case, as HTTP's are
    body: bytes

    @property
    def json(self) -> dict:
        return json.loads(self.body)


@dataclass
class Sink:
    url: str = ""
    status: int = 200  # what the next calls are answered with
    location: str = ""  # sent as Location (a redirect, with a 3xx status)
    calls: list[Received] = field(default_factory=list)


@contextmanager
def running_sink():
    sink = Sink()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            sink.calls.append(Received(self.headers, body))
            self.send_response(sink.status)
            if sink.location:
                self.send_header("Location", sink.location)
            self.end_headers()
            self.wfile.write(b"server banner that must not be shown")

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    sink.url = f"http://127.0.0.1:{server.server_address[1]}/hook"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield sink
    finally:
        server.shutdown()
        server.server_close()
