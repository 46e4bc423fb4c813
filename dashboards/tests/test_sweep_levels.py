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


def test_steps_at_one_level_make_no_level_change():
    """Three steps of 100 TPS each, and a fourth whose 105 lies 5 % above them (under SHIFT_MIN's 10 %): one level;
    a fifth at 150 is a change from the four's 101.25."""
    ts = [at(s) for s in range(5, 101, 5)]
    values = [100] * 12 + [105] * 4 + [150] * 4
    steps = [Step(at(0), at(20)), Step(at(20), at(40)), Step(at(40), at(60)), Step(at(60), at(80)),
             Step(at(80), at(100))]
    assert step_shifts(ts[:16], values[:16], steps[:4]) == ()
    (shift,) = step_shifts(ts, values, steps)
    assert (shift.at, shift.before, shift.after) == (at(85), 101.25, 150)


def test_a_step_without_polls_of_its_own_makes_no_level():
    ts = [at(s) for s in (5, 10, 15, 20)]
    assert step_shifts(ts, [100, 100, 100, 900], [Step(at(0), at(15)), Step(at(16), at(20))]) == ()


@pytest.mark.django_db
def test_a_sweeps_range_reads_its_steps_as_level_changes(admin_client):
    """The live 1/2/4/8 sweep on a saturated host (testing/sweep_recorded.py) read "Drifting: TPS 34.67 %/min".
    Its steps' polls after the first (by hand): 331.9, 360.9, 411.8 and 535.6 TPS; the steps' first polls at
    25.73, 51.76 and 77.73 s. The 1- and 2-thread steps lie 8.3 % apart (29 of their polls' mean 347.7), under a
    level change's 10 %, and read one level of 347.7 (sysbench counted 351.6 and 351.8)."""
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
    assert (f"Level changes: TPS from 347.7 to 411.8 at {first[1]} (+18 %), to 535.6 at {first[2]} (+30 %)"
            in verdict), verdict
    assert (f"Three levels, not a drift: the steps of sweep sw (1, 2, 4 and 8 threads), the load changed by design "
            f"at {first[1]} and {first[2]} UTC") in verdict, verdict


@pytest.mark.django_db
def test_a_flat_sweeps_periodic_dips_stay_its_verdict(admin_client):
    """20 TPS polled every 5 s for 600 s, a 10 s stall every 100 s from 50 s on (two polls of none), under four
    150 s steps of sweep sw: the steps' levels (18.6, 17.9, 18.6, 17.9 TPS) lie under 10 % apart; the verdict is
    the stalls', as without the runs."""
    server = make_server()
    zero = {55, 60, 155, 160, 255, 260, 355, 360, 455, 460, 555, 560}
    write_samples(Sample(server.pk, "global_status", at(t), 5.0, {"tps": 0 if t in zero else 100}, frozenset({"tps"}))
                  for t in range(5, 601, 5))
    for k in range(4):
        Run.objects.create(server=server, name=f"sw {k}", started_at=at(150 * k), ended_at=at(150 * k + 150),
                           sweep="sw", concurrency=k + 1)
    query = {"from": f"{T0:%Y-%m-%dT%H:%M:%S}", "to": f"{at(600):%Y-%m-%dT%H:%M:%S}"}
    body = admin_client.get(f"/servers/{server.pk}/stability/", query).content.decode()
    verdict = " ".join(body.split('id="verdict"')[1].split("</section>")[0].split())
    assert "Periodic dips every 100 s (6 occurrences, each 10 s long)" in verdict, verdict
    assert "Level change" not in verdict and "sweep sw" not in verdict, verdict


@pytest.mark.django_db
def test_a_range_past_the_sweep_keeps_the_change_into_it(admin_client):
    """80 TPS polled every 5 s for 300 s, then a sweep of two 300 s steps at 100 and 200 TPS: the change from 80
    to 100 at the first step's first poll (305 s) is TPS's own, kept with the steps' 100 to 200 at 605 s."""
    base = T0 - timedelta(minutes=10)
    server = make_server()
    write_samples(Sample(server.pk, "global_status", base + timedelta(seconds=t), 5.0,
                         {"tps": 5 * (80 if t <= 300 else 100 if t <= 600 else 200)}, frozenset({"tps"}))
                  for t in range(5, 901, 5))
    for k, (start, end) in enumerate(((300, 600), (600, 900))):
        Run.objects.create(server=server, name=f"sw {k}", started_at=base + timedelta(seconds=start),
                           ended_at=base + timedelta(seconds=end), sweep="sw", concurrency=k + 1)
    query = {"from": f"{base:%Y-%m-%dT%H:%M:%S}", "to": f"{base + timedelta(seconds=900):%Y-%m-%dT%H:%M:%S}"}
    body = admin_client.get(f"/servers/{server.pk}/stability/", query).content.decode()
    verdict = " ".join(body.split('id="verdict"')[1].split("</section>")[0].split())
    into, between = (f"{base + timedelta(seconds=s):%H:%M:%S}" for s in (305, 605))
    assert (f"Level changes: TPS from 80.0 to 100.0 at {into} (+25 %), to 200.0 at {between} (+100 %)"
            in verdict), verdict
    said = f"Two levels, not a drift: the steps of sweep sw (1 and 2 threads), the load changed by design at {between}"
    assert said in verdict, verdict
