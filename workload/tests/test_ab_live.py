"""A/A on the suite's MariaDB: six stress runs of one load, alternately put in A and B, polled each second.

The compare page's sentence is the ratio and 95 % interval of the runs' averages computed by hand from
the polls. A 95 % interval misses 1 in 20 times by its nature (its coverage is tested with seeded
draws in test_ab_ratio.py), so a suite that must not fail by chance asks the same runs' 99.9 %
interval to contain 1. The runs alternate A, B, A, B... so that a machine getting busier over the
minute burdens both groups alike.
"""

import re
from statistics import variance

import pytest
from django.core.management import call_command

from dashboards.analysis.ab_ratio import ab_ratio, t_quantile
from servers.models import Run
from testing.sweeps import PollEachLine, expected

pytestmark = [pytest.mark.django_db, pytest.mark.serial]  # a busy machine widens the runs' spread
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
    page = ab_ratio(by_hand[0::2], by_hand[1::2])
    assert (lo, hi) == (pytest.approx(page.lo, abs=0.006), pytest.approx(page.hi, abs=0.006))
    wide = ab_ratio(by_hand[0::2], by_hand[1::2], level=0.999)
    if wide.lo is None:  # A's 4 s runs spread too widely for a bounded 99.9 % set: 1 must still be inside it
        t = t_quantile(0.9995, wide.df)
        va, vb = variance(by_hand[0::2]) / 3, variance(by_hand[1::2]) / 3
        assert (wide.mean_b - wide.mean_a) ** 2 <= t * t * (vb + va), (ratio, lo, hi, wide, by_hand)
    else:
        assert wide.lo <= 1 <= wide.hi, (ratio, lo, hi, wide, by_hand)
