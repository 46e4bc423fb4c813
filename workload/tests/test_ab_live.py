"""A/A on the suite's MariaDB: six stress runs of one load, alternately put in A and B, polled each second.

The compare page's 95 % interval for B/A must contain 1. Being a 95 % interval it may miss 1 in 20
times by its nature (the coverage itself is tested with seeded draws in test_ab_ratio.py); the runs
alternate A, B, A, B... so that a machine getting busier over the minute burdens both groups alike.
"""

import re

import pytest
from django.core.management import call_command

from servers.models import Run
from testing.sweeps import PollEachLine, expected

pytestmark = pytest.mark.django_db
SENTENCE = re.compile(r"B is ([\d.]+) times A \(95 %: ([\d.]+)-([\d.]+), N=3, M=3\)\.")


def test_runs_of_the_same_load_give_an_interval_that_contains_one(server, write_user, client, admin_user):
    out = PollEachLine(server)
    for k in range(6):
        call_command("stress", "bench", "--mode", "ro", "--concurrency", "2", "--duration", "4", "--warmup", "1",
                     "--interval", "1", "--run", f"same {k}", *write_user, stdout=out)
    runs = list(Run.objects.filter(name__startswith="same ").order_by("started_at"))
    a, b = runs[0::2], runs[1::2]
    client.force_login(admin_user)
    html = client.get("/compare/", {"a": ",".join(str(r.pk) for r in a),
                                    "b": ",".join(str(r.pk) for r in b)}).content.decode()
    ratio, lo, hi = (float(v) for v in SENTENCE.search(html).groups())
    by_hand = [expected(out.readings, run)[1] for run in runs]  # each run's avg TPS from the polls
    assert ratio == pytest.approx(sum(by_hand[1::2]) / sum(by_hand[0::2]), abs=0.006)
    assert lo <= 1 <= hi, (ratio, lo, hi, by_hand)
