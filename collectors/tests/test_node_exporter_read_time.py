"""A node_exporter reading is timed when the agent answered, not when its body and our parse were done."""

import time
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler

import pytest

from collectors.http_poll import run_http
from collectors.pool import Target
from collectors.results import PollResult
from collectors.sources import node_exporter
from testing.http_agent import serving

SLOW_BODY_S = 1.5  # a body slow to arrive, as an agent on a loaded host or a far network gives
TEXT = ("node_boot_time_seconds 1700000000\n"
        + "".join(f'node_cpu_seconds_total{{cpu="0",mode="{mode}"}} 10\n' for mode in node_exporter.MODES)
        + "node_load1 0.5\n").encode()


class SlowBody(BaseHTTPRequestHandler):
    gathered: list[float] = []

    def do_GET(self):
        # node_exporter gathers every collector's metrics, then answers: the counters' time is before the headers.
        SlowBody.gathered.append(time.time())
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; version=0.0.4")
        self.send_header("Content-Length", str(len(TEXT)))
        self.end_headers()
        half = len(TEXT) // 2
        self.wfile.write(TEXT[:half])
        self.wfile.flush()
        time.sleep(SLOW_BODY_S)
        self.wfile.write(TEXT[half:])

    def log_message(self, *args):
        pass


@pytest.fixture
def slow_agent():
    with serving(SlowBody) as url:
        yield url + "/metrics"


def test_the_reading_is_timed_when_the_agent_answered(slow_agent):
    target = Target(9_000_001, "slow-agent", "127.0.0.1", 3306, "", "u", "p", node_exporter_url=slow_agent)
    result = PollResult(target.server_id, target.name, datetime.now(UTC))
    outcome, _snapshot = run_http(target, node_exporter.SOURCE, None, result)
    done = time.time()
    assert outcome.ok, outcome.error
    gathered = SlowBody.gathered[-1]
    # Timed at the end of the body, the reading would be SLOW_BODY_S after the agent gathered its counters: a
    # 5 s poll's rates off by 30 %. It is timed at the headers, which came right after the gathering.
    assert gathered <= outcome.raw.read_at < gathered + SLOW_BODY_S / 2 < done
