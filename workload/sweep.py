"""A sweep: one stress step per concurrency level, each recorded as a run of the sweep.

Each step runs warm-up + step duration; the run records the warm-up, so its
statistics start after it. A step that does not complete (Ctrl-C, a failure)
ends the sweep: it stays a run of its own, left out of the sweep, so the curve
holds only steps of equal length.
"""

import threading
from collections.abc import Callable
from dataclasses import dataclass, replace

from servers.models import Run, Server
from workload.driver import MAX_SESSIONS, DriverError, StressDriver, StressOptions
from workload.runs import close_run, open_run
from workload.summary import Summary
from workload.target import Target

MAX_LEVELS = 64
SAMPLES_WANTED = 3  # polls inside each step's window, for an average worth reading


@dataclass(frozen=True)
class SweepPlan:
    name: str
    levels: list[int]
    step_duration: float  # seconds measured per step, after the warm-up
    warmup: float = 0.0
    label: str = ""

    def __post_init__(self):
        if not self.name.strip():
            raise ValueError("a sweep needs a name: pass --run NAME")
        if self.step_duration <= 0 or self.warmup < 0:
            raise ValueError("--step-duration must be positive and --warmup cannot be negative")


def parse_levels(text: str) -> list[int]:
    """'1,2,4,8' -> [1, 2, 4, 8]: distinct positive thread counts, in the order given."""
    try:
        levels = [int(part) for part in text.replace(" ", "").split(",") if part]
    except ValueError:
        raise ValueError(f"--sweep {text!r}: give thread counts separated by commas, e.g. 1,2,4,8") from None
    if not levels or min(levels) < 1 or len(set(levels)) != len(levels) or len(levels) > MAX_LEVELS:
        raise ValueError(f"--sweep {text!r}: give up to {MAX_LEVELS} distinct positive thread counts, e.g. 1,2,4,8")
    if max(levels) > MAX_SESSIONS:  # refused before the first step runs, not when the big one starts
        raise ValueError(f"--sweep {text!r}: at most {MAX_SESSIONS:,} threads a level, the most connections "
                         "(max_connections) a MySQL or MariaDB server accepts")
    return levels


def short_steps(plan: SweepPlan, poll_interval: int) -> str:
    """A warning when a step is too short to hold SAMPLES_WANTED polls of the server; else ''."""
    if plan.step_duration >= (SAMPLES_WANTED + 1) * poll_interval:
        return ""
    return (f"warning: {plan.step_duration:g} s steps at the server's {poll_interval} s poll interval hold fewer "
            f"than {SAMPLES_WANTED} polls each: use --step-duration {(SAMPLES_WANTED + 1) * poll_interval} or more")


def step_name(plan: SweepPlan, level: int) -> str:
    return f"{plan.name} x{level}"


def drive(driver: StressDriver, stop: threading.Event) -> Summary:
    """The driver's summary; a failure to start or a bug of ours still yields one, so the run is closed."""
    try:
        return driver.run(stop)
    except DriverError as exc:  # the sessions could not even connect
        return Summary(status="failed", error=str(exc))
    except Exception as exc:  # noqa: BLE001 - a bug of ours must still close the run
        return Summary(status="failed", error=f"internal error: {exc!r}")


class SweepStop(threading.Event):
    """Ctrl-C for the whole sweep. Each step gets an event of its own (the driver sets it as the step
    ends); setting this one sets the current step's too."""

    def __init__(self):
        super().__init__()
        self.step = threading.Event()

    def set(self) -> None:
        super().set()
        self.step.set()

    def next_step(self) -> threading.Event:
        self.step = threading.Event()
        if self.is_set():  # Ctrl-C came between two steps
            self.step.set()
        return self.step


def run_sweep(server: Server, target: Target, base: StressOptions, plan: SweepPlan, stop: SweepStop,
              say: Callable[[str], None]) -> tuple[list[Run], Summary | None]:
    """The completed steps' runs, and the summary of the step that ended the sweep early (None if none did)."""
    done: list[Run] = []
    for level in plan.levels:
        options = replace(base, concurrency=level, duration=plan.warmup + plan.step_duration, warmup=plan.warmup)
        run = open_run(server, step_name(plan, level), options, plan.warmup, plan.name, plan.label)
        say(f"step {len(done) + 1}/{len(plan.levels)}: run '{run.name}', {level} threads, "
            f"{plan.warmup:g} s warm-up + {plan.step_duration:g} s")
        summary = drive(StressDriver(target, options, report=say), stop.next_step())
        close_run(run, summary)
        say(f"{summary.status}: {summary.line()}")
        if summary.status != "completed":
            leave_sweep(run)
            return done, summary
        done.append(run)
    return done, None


def leave_sweep(run: Run) -> None:
    note = f"{run.notes}\nleft out of sweep '{run.sweep}': the step did not run its full length"
    Run.objects.filter(pk=run.pk).update(sweep="", notes=note)
