"""Live sweeps on the suite's MariaDB: the stress command's output polled as the collector would, and what
the Scalability page's CSV says of each step."""

import csv
import io
import os
import signal
from datetime import timedelta

import numpy as np
from django.core.management import call_command

from collectors.batch import poll_server
from servers.models import Run, Server


class PollEachLine(io.StringIO):
    """The stress output, polling global_status at each TPS line (once a second), as the collector would.

    It keeps what each poll read, (ts, interval, tps delta), to check the store's figures against.
    """

    def __init__(self, server: Server, stop_on_step: int = 0):
        super().__init__()
        self.server, self.stop_on_step = server, stop_on_step
        self.readings: list[tuple] = []

    def write(self, text):
        if " tps " in text:
            (source,) = poll_server(self.server.pk, only=["global_status"]).sources
            assert source.ok, source.error
            sample = source.sample
            if sample.interval:
                self.readings.append((sample.ts, sample.interval, sample.values["tps"]))
        if self.stop_on_step and f"step {self.stop_on_step}/" in text:
            os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C as the step starts
        return super().write(text)


def sweep(out: io.StringIO, *args: str) -> str:
    call_command("stress", "bench", *args, stdout=out)
    return out.getvalue()


def expected(readings: list, run: Run) -> tuple[int, float, float, float]:
    """By hand: the polls whose whole interval lies after the warm-up and before the end."""
    start, end = run.started_at + timedelta(seconds=run.warmup_seconds), run.ended_at
    kept = [(iv, tps) for ts, iv, tps in readings if ts - timedelta(seconds=iv) >= start and ts <= end]
    rates = [tps / iv for iv, tps in kept]
    avg = sum(tps for _, tps in kept) / sum(iv for iv, _ in kept)
    return len(kept), avg, float(np.percentile(rates, 5)), float(np.percentile(rates, 95))


def scalability_csv(client, sweep: str) -> dict[int, dict]:
    """The Scalability page's figures per level, as its CSV gives them."""
    response = client.get("/export/scalability.csv", {"sweep": sweep})
    assert response.status_code == 200
    rows = csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode()))
    return {int(row["run id"]): row for row in rows}
