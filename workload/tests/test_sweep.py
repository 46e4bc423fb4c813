"""stress --sweep on the suite's MariaDB, polled each second: one run per level, figures from inside each step."""

import io
import signal

import pytest
from django.core.management import CommandError

from servers.models import Run
from testing.sweeps import PollEachLine, expected, scalability_csv, sweep
from workload.sweep import SweepPlan, parse_levels, short_steps

pytestmark = pytest.mark.django_db


def test_a_sweep_records_one_run_per_level_with_tps_from_inside_each_step(server, write_user, client, admin_user):
    out = PollEachLine(server)
    sweep(out, "--sweep", "1,2,4", "--step-duration", "3", "--warmup", "1", "--interval", "1",
          "--run", "rw sweep", "--label", "baseline", "--mode", "rw", *write_user)
    runs = list(Run.objects.filter(sweep="rw sweep").order_by("started_at"))
    assert [r.concurrency for r in runs] == [1, 2, 4]
    assert [r.name for r in runs] == ["rw sweep x1", "rw sweep x2", "rw sweep x4"]
    assert all(r.label == "baseline" and r.warmup_seconds == 1 and r.ended_at for r in runs)
    assert runs[0].ended_at <= runs[1].started_at and runs[1].ended_at <= runs[2].started_at
    client.force_login(admin_user)
    shown = scalability_csv(client, "rw sweep")
    for run in runs:
        count, avg, p5, p95 = expected(out.readings, run)
        level = shown[run.pk]
        assert count >= 2 and avg > 0 and level["threads"] == str(run.concurrency)
        assert int(level["samples"]) == count
        assert float(level["avg TPS (/s)"]) == pytest.approx(avg, rel=1e-3)  # intervals are kept to the ms
        assert float(level["p5 TPS (/s)"]) == pytest.approx(p5, rel=1e-3)
        assert float(level["p95 TPS (/s)"]) == pytest.approx(p95, rel=1e-3)
    # The warm-up is excluded: a step's poll in its first second (after the first step's, which has
    # no interval to count) is not counted.
    for run in runs[1:]:
        polled = [ts for ts, _, _ in out.readings if run.started_at < ts <= run.ended_at]
        assert int(shown[run.pk]["samples"]) < len(polled)


def test_ctrl_c_ends_the_current_step_and_keeps_the_completed_ones(server, write_user):
    handler = signal.getsignal(signal.SIGINT)
    output = sweep(PollEachLine(server, stop_on_step=2), "--sweep", "1,2,4", "--step-duration", "1.5",
                   "--interval", "0.5", "--run", "cut", *write_user)
    assert [r.concurrency for r in Run.objects.filter(sweep="cut")] == [1]
    (cut,) = Run.objects.filter(name="cut x2")
    assert cut.ended_at and cut.sweep == "" and "left out of sweep 'cut'" in cut.notes
    assert not Run.objects.filter(name="cut x4").exists()
    assert "1 of 3 steps recorded" in output
    assert signal.getsignal(signal.SIGINT) is handler


def test_bad_levels_are_refused_before_anything_runs(server, write_user):
    with pytest.raises(CommandError, match="distinct positive thread counts"):
        sweep(io.StringIO(), "--sweep", "1,0,4", *write_user)
    with pytest.raises(CommandError, match="comma"):
        sweep(io.StringIO(), "--sweep", "1;2", *write_user)
    assert not Run.objects.exists()
    assert parse_levels("1, 2,4,8") == [1, 2, 4, 8]


def test_steps_too_short_for_the_poll_interval_are_warned_of():
    plan = SweepPlan("s", [1, 2], step_duration=30)
    assert short_steps(plan, 10) == ("warning: 30 s steps at the server's 10 s poll interval hold fewer than "
                                     "3 polls each: use --step-duration 40 or more")
    assert short_steps(plan, 5) == ""
