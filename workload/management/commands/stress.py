"""manage.py stress SERVER: a dbSTRESS-like load on a registered server, recorded as a run."""

import os
import threading
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from servers.models import Server
from workload.driver import DriverError, StressDriver, StressOptions
from workload.runs import PausableRun, check_lengths, close_run, default_run_name, open_run, server_named
from workload.schema import DEFAULT_ROWS, DEFAULT_SCHEMA
from workload.signals import stop_on_signals
from workload.sweep import SweepPlan, SweepStop, drive, parse_levels, run_sweep, short_steps
from workload.target import Target, target_for
from workload.transactions import MODES


class Command(BaseCommand):
    help = ("Drive a read/write load on a registered server with explicit transactions, print TPS each "
            "interval and a summary, and record it as a run. The monitoring user is read-only: pass --user "
            "and --password-env for a user granted ALL ON steadystate_stress.*.")

    def add_arguments(self, parser):
        parser.add_argument("server", help="the name of a registered server")
        parser.add_argument("--mode", choices=MODES, default="mixed",
                            help="ro: reads only; rw: every transaction writes; mixed: half write (default)")
        parser.add_argument("--concurrency", type=int, default=4, help="sessions (default 4)")
        parser.add_argument("--duration", type=float, default=60, help="seconds, 0 = until Ctrl-C (default 60)")
        parser.add_argument("--think-ms", type=float, default=0, help="pause between transactions per session")
        parser.add_argument("--hold-trx", type=float, default=0,
                            help="keep one read view open this many seconds, so history length grows")
        parser.add_argument("--hold-every", type=float, default=0,
                            help="reopen that read view every so many seconds (default: once)")
        parser.add_argument("--stall-every", type=float, default=0,
                            help="take FLUSH TABLES WITH READ LOCK every so many seconds (needs RELOAD; 0: never)")
        parser.add_argument("--stall-for", type=float, default=0, help="seconds to hold each stall's lock")
        parser.add_argument("--interval", type=float, default=5, help="seconds between TPS lines (default 5)")
        parser.add_argument("--pause-file", default="", metavar="PATH",
                            help="while this file exists the load pauses (no transaction, no held read view); "
                                 "the demo's load uses it for `manage.py demo pause|resume`")
        parser.add_argument("--rows", type=int, default=DEFAULT_ROWS, help="rows in the accounts table")
        parser.add_argument("--schema", default=DEFAULT_SCHEMA, help="the driver's own schema on the server")
        parser.add_argument("--run", default="",
                            help="run name (default: stress MODE xN DATE); with --sweep, the sweep's name")
        # 0 is how a run keeps "none given" (the form and the API too): the pages then find it from the polls.
        parser.add_argument("--warmup", type=float, default=0, metavar="SECONDS",
                            help="seconds at the start left out of the run's statistics (default: found from the "
                                 "run's TPS polls, as for --warmup 0; the driver's own count then covers the whole "
                                 "run)")
        parser.add_argument("--label", default="",
                            help="what differs in this configuration, e.g. innodb_flush_neighbors=0")
        parser.add_argument("--sweep", default="",
                            help="concurrency levels, e.g. 1,2,4,8: one run per level (replaces --concurrency)")
        parser.add_argument("--step-duration", type=float, default=60,
                            help="with --sweep: seconds measured per level, after the warm-up (default 60)")
        parser.add_argument("--user", default="", help="connect as this user instead of the monitoring user")
        parser.add_argument("--password-env", default="",
                            help="the environment variable holding --user's password")

    def handle(self, *args, **opts):
        server = server_named(opts["server"])
        if opts["password_env"] and opts["password_env"] not in os.environ:
            raise CommandError(f"environment variable {opts['password_env']} is not set: "
                               f"export {opts['password_env']}='...' with the password of --user")
        if opts["warmup"] < 0:
            raise CommandError("--warmup cannot be negative")
        options = self._options(opts)
        plan = self._plan(opts) if opts["sweep"] else None
        check_lengths(run=opts["run"], label=opts["label"])
        driver = StressDriver(target_for(server, opts["user"], opts["password_env"]), options, report=self._say)
        try:
            driver.prepare()
        except DriverError as exc:
            raise CommandError(str(exc)) from None
        if plan:
            return self._sweep(server, driver.target, options, plan)
        name = opts["run"] or default_run_name(options)
        runs = PausableRun(lambda: open_run(server, name, options, opts["warmup"], label=opts["label"]),
                           paused=bool(options.pause_file) and Path(options.pause_file).exists())
        driver.on_pause = lambda paused: self._paused(driver, runs, paused)
        self._say(f"run '{name}' on server {server.name}: {options.describe()} (Ctrl-C stops)"
                  + ("" if runs.run else "; paused: the run starts when the load resumes"))
        stop = threading.Event()
        with stop_on_signals(stop):
            summary = drive(driver, stop)
        if runs.run is not None:
            close_run(runs.run, summary)
        self._say(f"{summary.status}: {summary.line()}")
        if summary.error:
            raise CommandError(summary.error)

    def _paused(self, driver: StressDriver, runs: PausableRun, paused: bool) -> None:
        """A pause ends the run with the load's figures so far; a resume opens the next, counted from then."""
        figures = driver.take_measured()
        if paused:
            runs.pause(figures)
        else:
            runs.resume()

    def _sweep(self, server: Server, target: Target, options: StressOptions, plan: SweepPlan) -> None:
        self._say(f"sweep '{plan.name}' on server {server.name}: {len(plan.levels)} steps "
                  f"({','.join(map(str, plan.levels))} threads), Ctrl-C ends the current step")
        if warning := short_steps(plan, server.poll_interval):
            self._say(warning)
        stop = SweepStop()
        with stop_on_signals(stop):
            done, early = run_sweep(server, target, options, plan, stop, self._say)
        self._say(f"sweep '{plan.name}': {len(done)} of {len(plan.levels)} steps recorded")
        if early is not None and early.error:
            raise CommandError(early.error)

    def _plan(self, opts: dict) -> SweepPlan:
        try:
            return SweepPlan(name=opts["run"] or f"sweep {timezone.now():%Y-%m-%d %H:%M}",
                             levels=parse_levels(opts["sweep"]), step_duration=opts["step_duration"],
                             warmup=opts["warmup"], label=opts["label"])
        except ValueError as exc:
            raise CommandError(str(exc)) from None

    def _options(self, opts: dict) -> StressOptions:
        try:
            return StressOptions(
                mode=opts["mode"], concurrency=opts["concurrency"], duration=opts["duration"],
                think_ms=opts["think_ms"], hold_trx=opts["hold_trx"], hold_every=opts["hold_every"],
                stall_every=opts["stall_every"], stall_for=opts["stall_for"],
                interval=opts["interval"], rows=opts["rows"], schema=opts["schema"], warmup=opts["warmup"],
                pause_file=opts["pause_file"],
            )
        except ValueError as exc:
            raise CommandError(str(exc)) from None

    def _say(self, line: str) -> None:
        self.stdout.write(line)
        self.stdout.flush()
