"""A run's stability range lists the dips of the polls the run's figures and verdict judge, no other.

Seen live: the Runs list's link to a run's range listed a dip from 5 s before the run started (63.5 TPS): the
first poll after the start, whose interval began before it. The run's figures, its report and its verdict all
leave that poll out (it measured mostly the time before the load)."""

import re
from datetime import UTC, datetime, timedelta

from servers.models import Run
from store.ingest import write_samples
from store.sample import Sample
from testing.servers import make_server

STEADY, BEFORE = 200.0, 63.5  # TPS: the run's polls, and the one read before it started


def dip_rows(body: str) -> list[str]:
    part = body.split('id="dips"')[1].split("</section>")[0]
    return re.findall(r"<tr><td>([^<]*)</td>", part)


def test_a_poll_read_before_the_run_started_is_no_dip_of_its_range(admin_client, db):
    server = make_server("pre-start")
    t0 = datetime.now(UTC).replace(microsecond=0) - timedelta(minutes=20)
    # Polls every 10 s from t0 + 10, the run starting 5 s after the first: the second, read 5 s into the run,
    # covers 5 s before it and reads 63.5 TPS (the load not yet on for half of it); every later one 200.
    polls = [t0 + timedelta(seconds=10 * i) for i in range(1, 33)]
    rates = [STEADY, BEFORE] + [STEADY] * 30
    write_samples([Sample(server.pk, "global_status", t, 10.0, {"tps": round(rate * 10)}, frozenset({"tps"}))
                   for t, rate in zip(polls, rates, strict=True)])
    start, end = polls[0] + timedelta(seconds=5), polls[-1]
    Run.objects.create(name="after the pre-start poll", server=server, started_at=start, ended_at=end)
    body = admin_client.get(f"/servers/{server.pk}/stability/", {
        "from": f"{start:%Y-%m-%dT%H:%M:%S.%f}", "to": f"{end:%Y-%m-%dT%H:%M:%S}"}).content.decode()
    assert "The run&#x27;s figures" in body or "run-figures" in body  # the page knows it is the run's range
    # Every poll inside the run reads 200 TPS: no dip (the median 200, the threshold 100), no row.
    assert dip_rows(body) == []
    assert "No dips" in body
