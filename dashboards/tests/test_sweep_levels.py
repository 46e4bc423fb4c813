"""A sweep's range on the stability page: its steps are level changes made by design, never a drift."""

from datetime import timedelta

import pytest
from django.utils import timezone

from dashboards.analysis.sweep_levels import Step, step_shifts
from servers.models import Run
from store.ingest import write_samples
from store.sample import Sample
from testing.servers import make_server
from testing.sweep_recorded import INTERVAL, POLLS, STEPS

T0 = timezone.now().replace(microsecond=0) - timedelta(minutes=10)


def at(seconds: float):
    return T0 + timedelta(seconds=seconds)


def test_each_step_is_a_level_from_its_own_polls_the_first_left_out():
    """Polls at 5, 10, 15 in a step from 0 to 15 (5 mixes the step before it), then 20, 25, 30 in one to 30."""
    ts = [at(s) for s in (5, 10, 15, 20, 25, 30)]
    (shift,) = step_shifts(ts, [900, 100, 200, 900, 400, 600], [Step(at(0), at(15)), Step(at(16), at(30))])
    assert (shift.at, shift.before, shift.after) == (at(20), 150, 500)


def test_a_step_without_polls_of_its_own_makes_no_level():
    ts = [at(s) for s in (5, 10, 15, 20)]
    assert step_shifts(ts, [100, 100, 100, 900], [Step(at(0), at(15)), Step(at(16), at(20))]) == ()


@pytest.mark.django_db
def test_a_sweeps_range_reads_its_steps_as_level_changes(admin_client):
    """The live 1/2/4/8 sweep on a saturated host (testing/sweep_recorded.py) read "Drifting: TPS 34.67 %/min".
    Its steps' polls after the first (by hand): 331.9, 360.9, 411.8 and 535.6 TPS; the steps' first polls at
    25.73, 51.76 and 77.73 s."""
    server = make_server()
    write_samples(Sample(server.pk, "global_status", at(t), INTERVAL, {"tps": n}, frozenset({"tps"})) for t, n in POLLS)
    for threads, start, end in STEPS:
        Run.objects.create(server=server, name=f"sw x{threads}", started_at=at(start), ended_at=at(end), sweep="sw",
                           concurrency=threads)
    query = {"from": f"{T0:%Y-%m-%dT%H:%M:%S}", "to": f"{at(102):%Y-%m-%dT%H:%M:%S}"}
    body = admin_client.get(f"/servers/{server.pk}/stability/", query).content.decode()
    verdict = " ".join(body.split('id="verdict"')[1].split("</section>")[0].split())
    assert "Drifting" not in verdict, verdict
    first = [f"{at(s):%H:%M:%S}" for s in (25.73, 51.76, 77.73)]
    assert (f"Level changes: TPS from 331.9 to 360.9 at {first[0]} (+9 %), to 411.8 at {first[1]} (+14 %), "
            f"to 535.6 at {first[2]} (+30 %)") in verdict, verdict
    assert (f"Four levels, not a drift: the steps of sweep sw (1, 2, 4 and 8 threads), the load changed by design "
            f"at {first[0]}, {first[1]} and {first[2]} UTC") in verdict, verdict
