"""Collecting without SteadyState: the worker's poll of one server, its raw readings into a file (docs/collect.md).

No PostgreSQL, no Redis, no Celery: the previous readings the deltas need stay in this process,
the readings go to the file as read, and `manage.py load` replays them through the delta engine
and the store as if the worker had polled them. Run as `manage.py collect` (which starts no
database for this command) or `python -m collectors.standalone collect`.
"""

import argparse
import os
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

import pymysql

from collectors import collect_file, mark_api
from collectors.collect_format import poll_record
from collectors.collect_marks import MarkError, MarkInbox, mark, mark_problem, mark_record, marks_path
from collectors.connection import ConnectError
from collectors.poll import poll_target
from collectors.pool import POOL, Target
from collectors.results import PollResult
from collectors.snapshots import Saved
from collectors.tls import MODES, TLS

DEFAULT_INTERVAL = 10
PRINT_EVERY = 60.0  # seconds between the lines that say what was collected
MARK_POLL = 0.5  # seconds between looks at the marks file while waiting for the next poll
URL_HELP = ("mysql://USER[:PASSWORD]@HOST[:PORT][?tls=MODE&ca=FILE&cert=FILE&key=FILE&socket=PATH"
            "&node_exporter=URL] (no password in the URL: the MYSQL_PWD environment variable)")


class UsageError(ValueError):
    """A bad argument, worded for the command line."""


DEFAULT_STATEMENTS_INTERVAL = 60  # as a registered server's (Server.statements_interval)


def parse_url(url: str, environ=os.environ) -> Target:
    """The server to collect from, as a poll Target."""
    parts = urlsplit(url)
    if parts.scheme not in ("mysql", "mariadb") or not parts.username:
        raise UsageError(f"SERVER-URL {url!r}: expected {URL_HELP}")
    query = {key: values[-1] for key, values in parse_qs(parts.query).items()}
    unknown = set(query) - {"tls", "ca", "cert", "key", "socket", "node_exporter"}
    if unknown:
        raise UsageError(f"SERVER-URL: unknown parameter {', '.join(sorted(unknown))}; expected {URL_HELP}")
    mode = query.get("tls", "preferred")
    if mode not in MODES:
        raise UsageError(f"SERVER-URL: tls={mode!r} is not one of {', '.join(MODES)}")
    try:
        port = parts.port or 3306
    except ValueError:
        raise UsageError(f"SERVER-URL: the port of {parts.netloc!r} is not a number from 1 to 65535") from None
    if not parts.hostname and not query.get("socket"):
        raise UsageError(f"SERVER-URL: no host (or socket=PATH); expected {URL_HELP}")
    password = unquote(parts.password) if parts.password is not None else environ.get("MYSQL_PWD", "")
    return Target(0, parts.hostname or "localhost", parts.hostname or "", port, query.get("socket", ""),
                  unquote(parts.username), password,
                  TLS(mode, query.get("ca", ""), query.get("cert", ""), query.get("key", "")),
                  node_exporter_url=query.get("node_exporter", ""))


def server_fields(target: Target) -> dict:
    """What the file's header says of the server (never its password)."""
    return {"address": target.address, "host": target.host, "port": target.port, "socket": target.socket,
            "user": target.user, "tls": target.tls.mode, "node_exporter_url": target.node_exporter_url,
            "statements_interval": target.statements_interval}


@dataclass
class Tally:
    """What was collected since the last line printed."""

    polls: int = 0
    failed: int = 0
    readings: int = 0
    trx: float = 0.0
    trx_seconds: float = 0.0
    basis: str = ""
    errors: list[str] = field(default_factory=list)

    def add(self, result: PollResult) -> None:
        self.polls += 1
        self.failed += 0 if result.ok else 1
        self.readings += sum(1 for s in result.sources if s.raw is not None)
        if not result.ok and result.error not in self.errors:
            self.errors.append(result.error)
        for sample in result.samples:
            if sample.source == "global_status" and sample.interval and "tps" in sample.values:
                self.trx += sample.values["tps"]
                self.trx_seconds += sample.interval
        if result.info is not None:
            self.basis = result.info.tps_basis

    def line(self, now: float, written: int) -> str:
        tps = f"TPS {self.trx / self.trx_seconds:.1f} ({self.basis})" if self.trx_seconds else "TPS not yet"
        text = (f"{datetime.fromtimestamp(now, UTC):%H:%M:%S}  {self.polls} polls ({self.failed} failed), "
                f"{self.readings} readings, {tps}, file {written / 1024:.0f} kB")
        return text + "".join(f"\n  error: {e}" for e in self.errors[:3])


def next_due(due: float, interval: int, now: float) -> float:
    """The next slot after due; slots missed (a slow poll, a suspended laptop) are skipped, not made up."""
    due += interval
    if now > due:
        due += ((now - due) // interval + 1) * interval
    return due


def collect(target: Target, path: Path, interval: int = DEFAULT_INTERVAL, duration: float | None = None,
            run: str = "", annotate: str = "", out: Callable[[str], None] = print, api_port: int = 0) -> int:
    """Poll target every interval into path until duration (seconds) passed or Ctrl-C; the number of polls."""
    check_login(target, path)
    start = time.time()
    resumed = path.exists() and path.stat().st_size > 0
    writer, note = collect_file.open_for_collection(path, server_fields(target), interval, start)
    out(f"collecting {target.user}@{target.address} every {interval} s "
        f"{'for ' + str(int(duration)) + ' s ' if duration else 'until Ctrl-C '}into {note}")
    saved: Saved = ({}, {})  # the previous readings the deltas need, kept in this process (not in Redis)
    inbox, tally, polls = MarkInbox(marks_path(path)), Tally(), 0
    api = mark_api.serve(path, api_port) if api_port else None
    if api is not None:
        out(f"runs and annotations API (docs/api.md) on http://127.0.0.1:{api_port}/api/")
    if run:  # a resumed collection's run is a run of its own (collectors.collect_runs)
        writer.write({**mark_record(start, run_start=run), **({"resumed": True} if resumed else {})})
    if annotate:
        writer.write(mark_record(start, annotate=annotate))
    due, printed = start, start
    try:
        while duration is None or due <= start + duration:
            wait_until(due, inbox, writer)
            result = poll_target(target, interval, datetime.fromtimestamp(due, UTC), saved=saved)
            saved[0].update(result.snapshots)
            saved[1].update(result.attempts)
            if not result.skipped:
                writer.write(poll_record(result))
                tally.add(result)
                polls += 1
            now = time.time()
            if now - printed >= PRINT_EVERY:
                out(tally.line(now, writer.bytes))
                tally, printed = Tally(), now
            due = next_due(due, interval, now)
    except KeyboardInterrupt:
        out("stopped")
    finally:
        if api is not None:
            api.shutdown()
        finish(writer, inbox, run, polls, tally, out)
    return polls


def check_login(target: Target, path: Path) -> None:
    """Stop before anything is written when the server refuses the login, which no wait mends; an
    unreachable server is left to the polls, which record each failure and go on until it answers.
    The connection made here is the one the first poll uses."""
    try:
        POOL.put(target, POOL.get(target))
    except ConnectError as exc:
        if exc.denied:
            kept = "left as it was" if path.exists() else "not created"
            raise UsageError(f"{exc}: nothing collected, {path} {kept}; check the user and its password "
                             f"(MYSQL_PWD or the URL)") from None
    except (OSError, pymysql.MySQLError):
        pass  # as a poll's failure: the first poll meets it again and records it


def wait_until(due: float, inbox: MarkInbox, writer: collect_file.Writer) -> None:
    """Sleep until due, copying marks into the file as they come."""
    while True:
        inbox.copy(writer)
        left = due - time.time()
        if left <= 0:
            return
        time.sleep(min(left, MARK_POLL))


def finish(writer: collect_file.Writer, inbox: MarkInbox, run: str, polls: int, tally: Tally, out) -> None:
    """The last marks, the run's end and the end record: a file without one was cut off."""
    now = time.time()
    inbox.copy(writer)
    if run:
        writer.write(mark_record(now, run_end=run))
    writer.write({"type": "end", "at": now, "polls": polls})
    writer.close()
    POOL.close_all()
    if tally.polls:
        out(tally.line(now, writer.bytes))
    out(f"{polls} polls written to {writer.path} ({writer.bytes / 1024:.0f} kB)")


def stop_on_sigterm() -> None:
    """SIGTERM (kill, a service manager) ends the collection as Ctrl-C does: its end record is written."""
    def interrupt(signum, frame):
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, interrupt)


def parse_duration(text: str) -> float:
    """Seconds from '90', '90s', '15m', '2h' or '1d'."""
    units = {"s": 1, "m": 60, "h": 3600, "d": 86400}
    number, unit = (text[:-1], text[-1]) if text and text[-1] in units else (text, "s")
    try:
        seconds = float(number) * units[unit]
    except ValueError:
        raise UsageError(f"--duration {text!r}: expected seconds, or a number with s, m, h or d") from None
    if not 0 < seconds <= 366 * 86400:
        raise UsageError(f"--duration {text!r}: expected more than 0 and at most a year")
    return seconds


def add_collect_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("url", metavar="SERVER-URL", help=URL_HELP)
    parser.add_argument("--to", required=True, metavar="FILE", help="the collection file (appended to if it exists)")
    parser.add_argument("--interval", type=int, default=DEFAULT_INTERVAL, help="seconds between polls (1-3600)")
    parser.add_argument("--statements-interval", type=int, default=DEFAULT_STATEMENTS_INTERVAL, metavar="SECONDS",
                        help="seconds between reads of the statement digests (1-3600, at least --interval)")
    parser.add_argument("--duration", help="stop after this long (90, 15m, 2h); default: until Ctrl-C")
    parser.add_argument("--run", default="", help="the collection is a run of this name (its start to its end)")
    parser.add_argument("--annotate", default="", help="an annotation at the collection's start")
    parser.add_argument("--api", type=int, default=0, metavar="PORT",
                        help="serve the runs and annotations API (docs/api.md) on 127.0.0.1:PORT while collecting")


def add_mark_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="the file a running collection writes (its --to)")
    parser.add_argument("--annotate", default="", help="an annotation now")
    parser.add_argument("--start-run", default="", help="a run of this name starts now")
    parser.add_argument("--end-run", default="", help="the run of this name ends now")


def run_collect(options, out: Callable[[str], None] = print) -> int:
    if not 1 <= options.interval <= 3600:
        raise UsageError(f"--interval {options.interval}: expected seconds from 1 to 3600")
    duration = parse_duration(options.duration) if options.duration else None
    stop_on_sigterm()
    if not 1 <= options.statements_interval <= 3600:
        raise UsageError(f"--statements-interval {options.statements_interval}: expected seconds from 1 to 3600")
    if not 0 <= options.api <= 65535:
        raise UsageError(f"--api {options.api}: expected a port from 1 to 65535")
    if problem := mark_problem(options.annotate, options.run):  # said before connecting
        raise UsageError(f"--run or --annotate: {problem}")
    target = replace(parse_url(options.url), statements_interval=options.statements_interval)
    return collect(target, Path(options.to), options.interval, duration,
                   options.run.strip(), options.annotate.strip(), out, options.api)


def run_mark(options, out: Callable[[str], None] = print) -> None:
    entry = mark(Path(options.file), options.annotate, options.start_run, options.end_run)
    what = {k: v for k, v in entry.items() if k not in ("type", "at")}
    out(f"marked {what} for the collection into {options.file}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m collectors.standalone", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    add_collect_arguments(commands.add_parser("collect", help="poll one server into a collection file"))
    add_mark_arguments(commands.add_parser("mark", help="mark a moment of a running collection"))
    options = parser.parse_args(argv)
    try:
        if options.command == "collect":
            run_collect(options)
        else:
            run_mark(options)
    except (UsageError, MarkError, collect_file.CollectionFileError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
