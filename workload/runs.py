"""Record a stress run as a monitor.Run with annotations at its start and end."""

from collections.abc import Callable

from django.core.management.base import CommandError
from django.db import close_old_connections, connection
from django.utils import timezone

from servers.models import Annotation, Run, Server
from servers.names import control_problem
from workload.driver import StressOptions
from workload.measured import Measured
from workload.summary import Summary

NAME_LIMIT = 200  # Run.name, sweep and label


def check_lengths(**texts: str) -> None:
    """Command-line names that fit a run: --run, --label, --sweep (no control characters, as the API's)."""
    for option, text in texts.items():
        if len(text) > NAME_LIMIT:
            raise CommandError(f"--{option} is longer than {NAME_LIMIT} characters")
        if problem := control_problem(f"--{option}", text):
            raise CommandError(problem)


def server_named(name: str) -> Server:
    """The registered server, or an error for the command line naming the ones there are."""
    try:
        return Server.objects.get(name=name)
    except Server.DoesNotExist:
        known = ", ".join(Server.objects.values_list("name", flat=True)) or "none yet"
        raise CommandError(f"no server named '{name}' (registered: {known}); add it first") from None


def default_run_name(options: StressOptions) -> str:
    return f"stress {options.mode} x{options.concurrency} {timezone.now():%Y-%m-%d %H:%M}"


def open_run(server: Server, name: str, options: StressOptions, warmup: float = 0, sweep: str = "",
             label: str = "") -> Run:
    """A run with the load's concurrency; `sweep` and `label` place it in a scalability study."""
    now = timezone.now()
    run = Run.objects.create(name=name[:NAME_LIMIT], server=server, started_at=now,
                             notes=f"stress: {options.describe()}", concurrency=options.concurrency,
                             warmup_seconds=round(warmup), sweep=sweep, label=label)
    Annotation.objects.create(server=server, run=run, at=now, text=f"stress start: {name} ({options.describe()})")
    return run


class PausableRun:
    """The run of a load that its pause file pauses (the demo's): a pause ends the run, a resume opens the
    next under the same name, so no run spans time the load did nothing (other clients' transactions)."""

    def __init__(self, open_next: Callable[[], Run], paused: bool):
        self.open_next = open_next
        self.run: Run | None = None if paused else open_next()

    def pause(self, figures: Measured | None) -> None:
        """End the run, with the load's own figures since it began."""
        if self.run is not None:
            end_run(self.run, f"stress paused: {self.run.name}: the load paused; a new run starts when it resumes",
                    client_figures=figures.figures() if figures else {})
            self.run = None

    def resume(self) -> None:
        if self.run is None:
            self.run = self.open_next()


def close_run(run: Run, summary: Summary) -> None:
    outcome = {"completed": "end", "interrupted": "stopped", "failed": "failed"}[summary.status]
    text = f"stress {outcome}: {run.name}: {summary.line()}"
    figures = summary.measured.figures() if summary.measured else {}
    end_run(run, text + (f": {summary.error}" if summary.error else ""), client_figures=figures)


def end_run(run: Run, text: str, **fields) -> None:
    """Set ended_at (and `fields`), add `text` to the notes and mark the end; safe after hours of an idle
    Django connection."""
    if not connection.in_atomic_block:  # inside a caller's transaction, the connection is the caller's
        close_old_connections()  # a run may outlive CONN_MAX_AGE: reconnect rather than fail here
    now = timezone.now()
    Run.objects.filter(pk=run.pk).update(ended_at=now, notes=f"{run.notes}\n{text}", **fields)
    Annotation.objects.create(server=run.server, run=run, at=now, text=text[:500])
    run.refresh_from_db()
