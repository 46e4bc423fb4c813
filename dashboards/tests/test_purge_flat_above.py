"""A history flat above the threshold is a backlog purge does not clear, never "purge keeps up".

Seen live on the demo server: purge slowed to one thread and batches of 1 under a heavy writer left 38,389 undo
logs when the load stopped (innodb_max_purge_lag 20,000). For the next 30 s the polls read 38,158, 37,992,
37,867 (a slope not told from 0 yet) and the page said "Flat at 37,867: purge keeps up", while the history stood
18,000 above the line where the server delays DML.
"""

from datetime import timedelta

import pytest
from django.utils import timezone

from alerts.readings import purge_reading
from store.ingest import write_samples
from store.sample import Sample
from testing.servers import make_server


@pytest.mark.django_db
def test_flat_above_the_threshold_says_the_backlog_stays(admin_client):
    server = make_server()
    last = timezone.now().replace(microsecond=0) - timedelta(seconds=1)
    polls = [last - timedelta(seconds=10 * (40 - i)) for i in range(41)]
    write_samples(Sample(server.pk, "history_length", t, None, {"history_list_length": 38_000 + (60 if i % 2 else -60)})
                  for i, t in enumerate(polls))
    page = f"/servers/{server.pk}/purge/?range=15m&threshold=20000"
    verdict = admin_client.get(page).content.decode().split('id="purge-verdict"')[1].split("</section>")[0]
    # The last poll (i = 40) read 38,000 - 60.
    assert "Flat</strong> at 37,940, above the threshold (20,000)" in verdict and "purge keeps up" not in verdict
    reading = purge_reading(server.pk, last, 20_000)
    assert reading.startswith("Flat at 37,940, above the threshold (20,000), since") and "purge keeps up" not in reading
    # Below the threshold a flat line is purge keeping up, as before.
    below = admin_client.get(f"/servers/{server.pk}/purge/?range=15m&threshold=50000").content.decode()
    assert "Flat</strong> at 37,940: purge keeps up" in below
