"""stress --sweep on the suite's MariaDB while another client runs: the page says what share was the other's."""

import threading

import pytest

from servers.models import Run
from testing.sweeps import PollEachLine, expected, scalability_csv, sweep
from workload.driver import StressDriver, StressOptions

pytestmark = pytest.mark.django_db


def test_a_sweep_beside_another_load_says_its_share(server, write_user, stress_target, client, admin_user):
    other = StressDriver(stress_target, StressOptions(mode="ro", concurrency=2, duration=0, think_ms=1),
                         report=lambda line: None)
    other.prepare()
    stop = threading.Event()
    background = threading.Thread(target=other.run, args=(stop,), daemon=True)
    background.start()
    try:
        out = PollEachLine(server)
        sweep(out, "--sweep", "1,2", "--step-duration", "3", "--warmup", "1", "--interval", "1",
              "--run", "beside", "--mode", "ro", *write_user)
    finally:
        stop.set()
        background.join()
    client.force_login(admin_user)
    shown = scalability_csv(client, "beside")
    for run in Run.objects.filter(sweep="beside"):
        _count, server_tps, _p5, _p95 = expected(out.readings, run)  # by hand, from the polls
        own_tps = run.client_figures["tps"]
        level = shown[run.pk]
        assert float(level["load's own TPS (/s)"]) == pytest.approx(own_tps)
        share = float(level["other clients (share of server TPS)"])
        assert share == pytest.approx((server_tps - own_tps) / server_tps, rel=1e-3)
        assert share > 0.05  # the other client's two sessions ran a good part of the server's transactions
    html = client.get("/scalability/", {"sweep": "beside"}).content.decode()
    assert "other clients: " in html
