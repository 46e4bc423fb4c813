"""manage.py stress SERVER: a dbSTRESS-like load on a registered server, recorded as a run."""

import os
import threading

from django.core.management.base import BaseCommand, CommandError

from monitor.models import Server
from workload.driver import DriverError, StressDriver, StressOptions
from workload.runs import close_run, default_run_name, open_run
from workload.schema import DEFAULT_ROWS, DEFAULT_SCHEMA
from workload.signals import stop_on_signals
from workload.summary import Summary
from workload.target import target_for
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
        parser.add_argument("--interval", type=float, default=5, help="seconds between TPS lines (default 5)")
        parser.add_argument("--rows", type=int, default=DEFAULT_ROWS, help="rows in the accounts table")
        parser.add_argument("--schema", default=DEFAULT_SCHEMA, help="the driver's own schema on the server")
        parser.add_argument("--run", default="", help="run name (default: stress MODE xN DATE)")
        parser.add_argument("--user", default="", help="connect as this user instead of the monitoring user")
        parser.add_argument("--password-env", default="",
                            help="the environment variable holding --user's password")

    def handle(self, *args, **opts):
        server = self._server(opts["server"])
        if opts["password_env"] and opts["password_env"] not in os.environ:
            raise CommandError(f"environment variable {opts['password_env']} is not set: "
                               f"export {opts['password_env']}='...' with the password of --user")
        options = self._options(opts)
        driver = StressDriver(target_for(server, opts["user"], opts["password_env"]), options, report=self._say)
        try:
            driver.prepare()
        except DriverError as exc:
            raise CommandError(str(exc)) from None
        run = open_run(server, opts["run"] or default_run_name(options), options)
        self._say(f"run '{run.name}' on server {server.name}: {options.describe()} (Ctrl-C stops)")
        summary = self._drive(driver)
        close_run(run, summary)
        self._say(f"{summary.status}: {summary.line()}")
        if summary.error:
            raise CommandError(summary.error)

    def _drive(self, driver: StressDriver) -> Summary:
        stop = threading.Event()
        with stop_on_signals(stop):
            try:
                return driver.run(stop)
            except DriverError as exc:  # the sessions could not even connect
                return Summary(status="failed", error=str(exc))
            except Exception as exc:  # a bug of ours must still close the run
                return Summary(status="failed", error=f"internal error: {exc!r}")

    def _server(self, name: str) -> Server:
        try:
            return Server.objects.get(name=name)
        except Server.DoesNotExist:
            known = ", ".join(Server.objects.values_list("name", flat=True)) or "none yet"
            raise CommandError(f"no server named '{name}' (registered: {known}); add it first") from None

    def _options(self, opts: dict) -> StressOptions:
        try:
            return StressOptions(
                mode=opts["mode"], concurrency=opts["concurrency"], duration=opts["duration"],
                think_ms=opts["think_ms"], hold_trx=opts["hold_trx"], hold_every=opts["hold_every"],
                interval=opts["interval"], rows=opts["rows"], schema=opts["schema"],
            )
        except ValueError as exc:
            raise CommandError(str(exc)) from None

    def _say(self, line: str) -> None:
        self.stdout.write(line)
        self.stdout.flush()
