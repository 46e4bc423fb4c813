"""A drain's first poll after the peak, too soon for a pace: the fall is from the peak, read at the poll after it.

Seen live on the demo server: the history rose to 150,456 at 19:50:48 (a read view released 0.3 s before
that poll), then read 97,913 at 19:50:54. The page said "Fell from 145,044 to 97,913 at 19:50:48": the
value of the poll before the peak, at the peak's own time, when the history had risen there. A drain's segment
starts at its peak (docs/dashboards.md, "The trend now"), so the poll before it is no point of the fall.
"""

from datetime import timedelta

import pytest
from django.utils import timezone

from alerts.readings import purge_reading
from dashboards import reads
from store.ingest import write_samples
from store.sample import Sample
from testing.servers import make_server


@pytest.mark.django_db
def test_a_fall_from_the_peak_is_said_from_the_peak_at_the_poll_after_it(admin_client):
    server = make_server()
    now = timezone.now().replace(microsecond=0)
    # 1,000 an undo log a poll up to 30,100 (the peak, 10 s before the last poll), then 20,000: no cliff (not
    # under a quarter of 30,100), a drain from the peak.
    values = [1000 * i + 100 for i in range(31)] + [20_000]
    times = [now - timedelta(seconds=10 * (len(values) - 1 - i)) for i in range(len(values))]
    write_samples([Sample(server.pk, "history_length", t, 10.0, {reads.HISTORY: v})
                   for t, v in zip(times, values, strict=True)])
    body = admin_client.get(f"/servers/{server.pk}/purge/?range=15m").content.decode()
    verdict = body.split('id="purge-verdict"')[1].split("</section>")[0]
    assert f"Fell</strong> from 30,100 to 20,000 at {times[-1]:%H:%M:%S} UTC" in verdict
    assert purge_reading(server.pk, times[-1], 1_000_000).startswith(
        f"Fell from 30,100 to 20,000 at {times[-1]:%H:%M:%S} UTC")
