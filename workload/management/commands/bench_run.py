"""manage.py bench_run SERVER --label L -- sysbench ... run: an external benchmark recorded as a run."""

import shutil
import signal
import subprocess
from collections import deque

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from servers.models import Annotation, Run, Server
from workload.external import (
    SUMMARY_LIMIT,
    THREADS_PLACEHOLDER,
    masked,
    read_call,
    sysbench_after_warmup,
    sysbench_figures,
    tool_summary,
    with_threads,
)
from workload.runs import NAME_LIMIT, check_lengths, end_run, server_named
from workload.signals import on_signals
from workload.sweep import leave_sweep, parse_levels

KEPT_LINES = 5_000


def default_signals() -> None:
    """In the tool's process: Ctrl-C acts as in a terminal even where ours was started with it ignored."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def failure(server: Server, run: Run) -> str:
    return (f"server {server.name}: {run.notes.rsplit(chr(10), 1)[-1]}; the run '{run.name}' is recorded "
            "with the output's last lines as its summary")


class Command(BaseCommand):
    help = ("Run an external benchmark (sysbench, mysqlslap, any command) and record it as a run: its command "
            "line (passwords masked), its concurrency (sysbench --threads, mysqlslap --concurrency) and its own "
            "summary. With --levels 1,2,4 the command runs once per level, {threads} in it replaced by the level. "
            "Put the command after --.")

    def add_arguments(self, parser):
        parser.add_argument("server", help="the name of a registered server")
        parser.add_argument("--run", default="", help="run name (default: the tool, its threads and the date); "
                                                      "with --levels, the sweep's name")
        parser.add_argument("--label", default="", help="what differs in this configuration")
        parser.add_argument("--sweep", default="", help="the sweep this run is a step of")
        parser.add_argument("--levels", default="",
                            help="thread counts, e.g. 1,2,4: one run per level, {threads} in the command replaced")
        parser.add_argument("--warmup", type=int, default=None,
                            help="seconds left out of the statistics (default: sysbench's --warmup-time, "
                                 "an option of sysbench 1.1 and later, else 0)")
        parser.add_argument("--concurrency", type=int, default=None,
                            help="client threads, when the command line does not say them")
        parser.add_argument("argv", nargs="+", metavar="-- COMMAND", help="the benchmark's command line, after --")

    def handle(self, *args, **opts):
        server = server_named(opts["server"])
        argv = opts["argv"][1:] if opts["argv"][:1] == ["--"] else opts["argv"]
        if not argv:
            raise CommandError("give the benchmark's command after --, e.g. -- sysbench oltp_read_write run")
        if shutil.which(argv[0]) is None:
            raise CommandError(f"command not found: {argv[0]} (for sysbench: apt-get install sysbench)")
        if opts["warmup"] is not None and opts["warmup"] < 0:
            raise CommandError("--warmup cannot be negative")
        check_lengths(run=opts["run"], label=opts["label"], sweep=opts["sweep"])
        if opts["levels"]:
            self._levels(server, argv, opts)
            return
        run, outcome = self._one(server, argv, opts)
        if outcome == "failed":
            raise CommandError(failure(server, run))

    def _levels(self, server: Server, argv: list[str], opts: dict) -> None:
        if not any(THREADS_PLACEHOLDER in arg for arg in argv):
            raise CommandError("--levels needs {threads} in the command, e.g. --threads={threads}")
        try:
            levels = parse_levels(opts["levels"])
        except ValueError as exc:
            raise CommandError(str(exc).replace("--sweep", "--levels")) from None
        sweep = opts["sweep"] or opts["run"] or f"{read_call(argv).tool} sweep {timezone.now():%Y-%m-%d %H:%M}"
        for done, level in enumerate(levels):
            step = {**opts, "sweep": sweep, "run": f"{sweep} x{level}", "concurrency": level}
            run, outcome = self._one(server, with_threads(argv, level), step)
            if outcome != "end":
                leave_sweep(run)
                self._say(f"sweep '{sweep}': {done} of {len(levels)} steps recorded")
                if outcome == "failed":
                    raise CommandError(failure(server, run))
                return
        self._say(f"sweep '{sweep}': {len(levels)} steps recorded")

    def _one(self, server: Server, argv: list[str], opts: dict) -> tuple[Run, str]:
        """The run recorded around one execution, and how it ended: end, stopped or failed."""
        call = read_call(argv)
        concurrency = opts["concurrency"] or call.concurrency
        name = opts["run"] or f"{call.tool} x{concurrency or '?'} {timezone.now():%Y-%m-%d %H:%M}"
        command = masked(argv)
        run = Run.objects.create(
            name=name[:NAME_LIMIT], server=server, started_at=timezone.now(), concurrency=concurrency,
            warmup_seconds=opts["warmup"] if opts["warmup"] is not None else call.warmup or 0,
            sweep=opts["sweep"], label=opts["label"], command=command, notes=f"{call.tool}: {command}"[:10000],
        )
        Annotation.objects.create(server=server, run=run, at=run.started_at, text=f"{call.tool} start: {name}"[:500])
        note = call.note if not opts["concurrency"] else ""  # --concurrency answers "its threads are unknown"
        self._say(f"run '{name}' on server {server.name}: {command}" + (f" ({note})" if note else ""))
        code, output, stopped = self._execute(argv)
        outcome = "stopped" if stopped else "end" if code == 0 else "failed"
        summary = tool_summary(call.tool, output)[:SUMMARY_LIMIT]
        end_run(run, f"{call.tool} {outcome}: {name}: exit {code}", tool_summary=summary,
                client_figures=own_after_warmup(call.tool, call.warmup, run.warmup_seconds, output, summary))
        return run, outcome

    def _execute(self, argv: list[str]) -> tuple[int, str, bool]:
        """Stream the tool's output; Ctrl-C goes to the tool, which ends its run and prints its summary."""
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, bufsize=1,
                                encoding="utf-8", errors="replace", preexec_fn=default_signals)
        got: list[int] = []
        lines: deque[str] = deque(maxlen=KEPT_LINES)  # hours of per-second reports: the summary is at the end

        def forward(signum: int) -> None:
            got.append(signum)
            proc.send_signal(signum)

        with on_signals(forward):
            for line in proc.stdout or ():
                lines.append(line)
                self._say(line.rstrip("\n"))
            code = proc.wait()
        return code, "".join(lines), bool(got)

    def _say(self, line: str) -> None:
        self.stdout.write(line)
        self.stdout.flush()


def own_after_warmup(tool: str, tools_warmup: int | None, warmup: int, output: str, summary: str) -> dict:
    """sysbench's own figures over the run's window where bench_run --warmup gave a warm-up sysbench did not
    leave out itself (1.0 has no --warmup-time): its rate from its interval reports after it, so the pages
    compare it with the server's over the same seconds; {} otherwise (its summary is read as it is)."""
    if tool != "sysbench" or tools_warmup is not None or not warmup:
        return {}
    after = sysbench_after_warmup(output, warmup)
    return {**sysbench_figures(summary), **after} if after else {}
