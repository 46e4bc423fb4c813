"""Our poll against the real peer, side by side: what each costs the monitored server.

Starts a private MariaDB (performance_schema ON) under a steady sysbench write load
(oltp_write_only at a fixed rate), then, at the same interval and against that same
server, our poll (the batch path of a worker: pooled connection, every source when due,
Redis snapshots, the store write) as user `steady`, and Debian's
prometheus-mysqld-exporter (a child process on a private port, scraped over HTTP)
as user `exporter` with comparable collectors: global status, wait events, InnoDB
metrics, InnoDB status. Both users have the same grants.

Each interval holds one poll and one scrape, half an interval apart, so each follows
the other by the same 5 s (alternating within every window). Per window, read as root from
performance_schema (so the measuring is not measured): statements and their server
time per poll/scrape (events_statements_summary_by_user_by_event_name deltas per
user), connections opened (performance_schema.users), the client's CPU (our
polling thread; the exporter's process), values kept (our sample values; the
exporter's mysql_* samples), and the CPU of the server threads serving each monitor
during its calls (the kernel's schedstat per thread, read before and after each call:
everything the connection costs the server, the exporter's connection set-up included,
and none of the server's other threads), with the time those threads waited for a CPU;
the ratio is computed inside each window, then min/median/max over the windows. Our
connection's one thread is the probe of the window: where it waited for a CPU over a tenth
of our statement time, statement time measures the machine more than the server's work
(other processes on MariaDB's CPU with --no-first, the monitors' own work with
--shared-cpus), and the window is marked; the server threads' CPU does not count the wait.
The exporter's waits also hold its new connection's hand-over between the server's own
threads (0.2-1.0 ms a scrape with MariaDB first on its CPU).
Then a per-source cost table: each of our sources and each exporter collector alone,
with what it buys, and what each part of our poll's shared statement costs inside it
(bench/statement_parts.py), with the ratio its absence would give. --per-statement adds
what each statement of our polls cost inside the windows (performance_schema's per-thread
statement history, turned on for that run: it costs every statement a little, so the
ratios of such a run are not the headline figure).

MariaDB gets a CPU of its own, the monitors, sysbench, Postgres and Redis the others, as
a database host apart from the monitoring host (bench/cpus.py): on shared CPUs a
monitor's own client work right after a result arrives delays the server thread still
ending that statement, and performance_schema counts the wait as statement time.
--shared-cpus measures that way. MariaDB's threads also run first on their CPU (the
real-time class, bench/cpus.py prioritize), since other processes on the machine still run
there; each window prints how much of that CPU they took. --no-first measures without.

    make bench-deps   # the exporter (Debian's prometheus-mysqld-exporter) and sysbench
    .venv/bin/python bench/peer_cost.py [--interval 10] [--window 60] [--windows 4] [--per-statement]
"""

import argparse
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "monitor.settings_test")  # private Postgres + Redis

import django  # noqa: E402

django.setup()

import psutil  # noqa: E402
from django.core.management import call_command  # noqa: E402
from prometheus_client.parser import text_string_to_metric_families  # noqa: E402

from bench import cpus, statement_parts  # noqa: E402
from collectors import registry  # noqa: E402
from collectors.batch import poll_servers  # noqa: E402
from collectors.poll import read  # noqa: E402
from collectors.pool import POOL, Target  # noqa: E402
from monitor.runtime.ports import free_port  # noqa: E402
from monitor.runtime.sandbox import SandboxMariaDB, find_binary  # noqa: E402
from servers.models import Server  # noqa: E402

OURS, PEER = "steady", "exporter"
PASSWORD = "s3cret!"
EXPORTER = "prometheus-mysqld-exporter"
# The comparable set; the exporter's other default collectors switched off.
PEER_COLLECTORS = ("global_status", "perf_schema.eventswaits", "info_schema.innodb_metrics", "engine_innodb_status")
PEER_OFF = ("global_variables", "slave_status", "info_schema.innodb_cmp", "info_schema.innodb_cmpmem",
            "info_schema.query_response_time")
USER_STATEMENTS_SQL = (
    "SELECT COALESCE(SUM(COUNT_STAR), 0), COALESCE(SUM(SUM_TIMER_WAIT), 0)"
    " FROM performance_schema.events_statements_summary_by_user_by_event_name WHERE USER = %s"
)
USER_CONNECTIONS_SQL = "SELECT COALESCE(SUM(TOTAL_CONNECTIONS), 0) FROM performance_schema.users WHERE USER = %s"
SYSBENCH_DB = "sbtest"
# Whom each server thread serves: a user, or BACKGROUND/FOREGROUND for the server's own threads.
THREAD_USERS_SQL = ("SELECT THREAD_OS_ID, IFNULL(PROCESSLIST_USER, TYPE) FROM performance_schema.threads"
                    " WHERE THREAD_OS_ID IS NOT NULL")
NO_CONNECTION = ""  # threads serving no connection at either end of a window: the exporter's (see Meter)
GOAL = 0.65  # our poll's server time over the exporter's scrape, median of the windows
SETTLE = 0.02  # s after a call: its statements' time is counted when they end on the server, after the answer
WAITED = 0.1  # a window where our server thread waited for a CPU over this share of our statement time
HISTORY_ON = "UPDATE performance_schema.setup_consumers SET ENABLED = 'YES' WHERE NAME = 'events_statements_history'"
# Our connections' last statements (10 per thread by default: a poll sends fewer between two reads).
HISTORY_SQL = ("SELECT h.THREAD_ID, h.EVENT_ID, LEFT(h.SQL_TEXT, 60), h.TIMER_WAIT"
               " FROM performance_schema.events_statements_history h JOIN performance_schema.threads t"
               " USING (THREAD_ID) WHERE t.PROCESSLIST_USER = %s")


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--interval", type=float, default=10, help="seconds between polls (and scrapes)")
    parser.add_argument("--window", type=float, default=60,
                        help="seconds per window: a multiple of 60 counts the 60 s sources once per window")
    parser.add_argument("--windows", type=int, default=4)
    parser.add_argument("--rate", type=int, default=50, help="sysbench write transactions per second")
    parser.add_argument("--repeat", type=int, default=20, help="calls per row of the per-source table")
    parser.add_argument("--per-statement", action="store_true",
                        help="also each statement of our polls (turns performance_schema's statement history on)")
    parser.add_argument("--shared-cpus", action="store_true",
                        help="leave MariaDB on the monitors' CPUs (by default it gets one of its own, bench/cpus.py)")
    parser.add_argument("--no-first", action="store_true",
                        help="leave MariaDB's threads in the ordinary scheduling class (by default they run before"
                             " other processes on their CPU, bench/cpus.py prioritize)")
    return parser.parse_args()


class Meter:
    """The per-user totals, read as root over one kept connection."""

    def __init__(self, server: SandboxMariaDB):
        self.conn = server.connect()
        self.pid = server.process.pid

    def thread_cpu(self) -> dict[int, tuple[str, int, int]]:
        """Each server thread's CPU so far and its wait for a CPU while runnable (ns, the kernel's
        schedstat), with the user it serves now.

        A thread with no user serves no connection at the moment: between scrapes, the one
        the exporter's last connection ran on (MariaDB keeps it in its thread cache).
        """
        with self.conn.cursor() as cur:
            cur.execute(THREAD_USERS_SQL)
            users = {int(tid): user for tid, user in cur.fetchall()}
        found = {}
        for task in Path(f"/proc/{self.pid}/task").iterdir():
            try:
                ns, waited = (int(n) for n in (task / "schedstat").read_text().split()[:2])
            except (OSError, ValueError):
                continue  # a thread that ended meanwhile
            found[int(task.name)] = (users.get(int(task.name), NO_CONNECTION), ns, waited)
        return found

    def totals(self, user: str) -> tuple[int, int, int]:
        with self.conn.cursor() as cur:
            cur.execute(USER_STATEMENTS_SQL, (user,))
            count, picos = cur.fetchone()
            cur.execute(USER_CONNECTIONS_SQL, (user,))
            return int(count), int(picos), int(cur.fetchone()[0])


class StatementLog:
    """What each statement our polls sent cost the server, from the per-thread statement history (as root)."""

    def __init__(self, meter: Meter):
        self.meter, self.seen, self.polls = meter, set(), 0
        self.ms: dict[str, list[float]] = {}
        with meter.conn.cursor() as cur:
            cur.execute(HISTORY_ON)

    def after_poll(self) -> None:
        """Counts the statements of the poll just made (the history's rows not seen before)."""
        with self.meter.conn.cursor() as cur:
            cur.execute(HISTORY_SQL, (OURS,))
            rows = cur.fetchall()
        for thread, event, text, picos in rows:
            if (thread, event) not in self.seen:
                self.seen.add((thread, event))
                self.ms.setdefault(text, []).append(picos / 1e9)
        self.polls += 1

    def forget(self) -> None:
        """What the history holds now is not a measured poll's (the connecting one, the warm-up)."""
        self.after_poll()
        self.ms, self.polls = {}, 0

    def print(self) -> None:
        print(f"\nour statements in the windows' {self.polls} polls (performance_schema's statement history):")
        print(f"  {'times':>5} {'median ms':>9} {'ms per poll':>11}  statement")
        for text, ms in sorted(self.ms.items(), key=lambda item: -sum(item[1])):
            print(f"  {len(ms):>5} {statistics.median(ms):>9.3f} {sum(ms) / max(1, self.polls):>11.3f}  {text}")


@dataclass
class Side:
    """One monitor's figures in one window: totals at the start, then what its calls cost."""

    user: str
    threads: str  # whose server threads' CPU is this side's (Meter.thread_cpu)
    start: tuple[int, int, int] = (0, 0, 0)
    calls: int = 0
    cpu: float = 0.0  # seconds of client CPU
    values: int = 0
    call_ms: list = field(default_factory=list)  # server time of each call, for a median robust to spikes
    server_ns: list = field(default_factory=lambda: [0, 0])  # its server threads' CPU and wait for a CPU
    per_call: dict = field(default_factory=dict)

    def add_server(self, spent: dict[str, tuple[int, int]]) -> None:
        cpu, wait = spent.get(self.threads, (0, 0))
        self.server_ns = [self.server_ns[0] + cpu, self.server_ns[1] + wait]

    def finish(self, end: tuple[int, int, int]) -> dict:
        count, picos, connects = (a - b for a, b in zip(end, self.start, strict=True))
        n = max(1, self.calls)
        self.per_call = {"statements": count / n, "ms": picos / 1e9 / n, "connects": connects / n,
                         "server_cpu_ms": self.server_ns[0] / 1e6 / n, "cpu_wait_ms": self.server_ns[1] / 1e6 / n,
                         "cpu_ms": self.cpu * 1000 / n, "values": self.values / n, "calls": self.calls,
                         "median_ms": statistics.median(self.call_ms) if self.call_ms else float("nan")}
        return self.per_call


class Exporter:
    """Debian's mysqld_exporter as a child process on a private port."""

    def __init__(self, server: SandboxMariaDB, base: Path):
        binary = find_binary(EXPORTER)
        if not binary:
            sys.exit(f"{EXPORTER} is not installed: make bench-deps (scripts/system-deps.sh bench)")
        cnf = base / "exporter.cnf"
        cnf.write_text(f"[client]\nuser={PEER}\npassword={PASSWORD}\nhost=127.0.0.1\nport={server.port}\n")
        self.port = free_port()
        flags = [f"--collect.{c}" for c in PEER_COLLECTORS] + [f"--no-collect.{c}" for c in PEER_OFF]
        self.process = subprocess.Popen(
            [binary, f"--config.my-cnf={cnf}", f"--web.listen-address=127.0.0.1:{self.port}", *flags],
            stdout=(base / "exporter.log").open("w"), stderr=subprocess.STDOUT)
        self.ps = psutil.Process(self.process.pid)
        self.version = subprocess.run([binary, "--version"], capture_output=True, text=True).stderr.split("\n")[0]
        self._wait_ready()

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{self.port}/", timeout=2).read()
                return
            except OSError:
                time.sleep(0.2)
        raise RuntimeError("the exporter did not answer within 20 s (see exporter.log)")

    def scrape(self, collectors: tuple[str, ...] = ()) -> tuple[float, int]:
        """One scrape: (the exporter's CPU seconds spent, mysql_* samples in it)."""
        query = "".join(f"&collect[]={c}" for c in collectors).lstrip("&")
        cpu0 = self.cpu()
        url = f"http://127.0.0.1:{self.port}/metrics" + (f"?{query}" if query else "")
        body = urllib.request.urlopen(url, timeout=30).read().decode()
        samples = sum(len(f.samples) for f in text_string_to_metric_families(body) if f.name.startswith("mysql_"))
        return self.cpu() - cpu0, samples

    def cpu(self) -> float:
        times = self.ps.cpu_times()
        return times.user + times.system

    def stop(self) -> None:
        stop_child(self.process)


class Ours:
    """Our poll of the bench server through the worker's batch path (poll, snapshots, store write)."""

    def __init__(self, server: SandboxMariaDB, interval: float):
        Server.objects.filter(name="peer-bench").delete()
        self.server = Server(name="peer-bench", host="127.0.0.1", port=server.port, user=OURS,
                             poll_interval=int(interval))
        self.server.password = PASSWORD
        self.server.save()

    def poll(self) -> tuple[float, int | None]:
        """(CPU seconds, values kept); None values: skipped, which must never happen here."""
        cpu0 = time.thread_time()
        result = poll_servers([self.server], {self.server.id: None})[0]
        if result.skipped:
            print(f"  poll skipped: {result.skipped}", flush=True)
            return time.thread_time() - cpu0, None
        kept = sum(len(s.sample.values) for s in result.sources if s.sample)
        failed = [s.error for s in result.sources if not s.ok and not s.unavailable]  # not MySQL-only ones
        if failed:
            print(f"  poll errors: {failed}", flush=True)
        return time.thread_time() - cpu0, kept


def sysbench(server: SandboxMariaDB, *extra: str) -> list[str]:
    """The benches' write load: sysbench oltp_write_only on two small tables, as root."""
    return ["sysbench", "oltp_write_only", "--db-driver=mysql", "--mysql-host=127.0.0.1",
            f"--mysql-port={server.port}", "--mysql-user=root", f"--mysql-db={SYSBENCH_DB}",
            "--tables=2", "--table-size=20000", *extra]


def prepare_load(server: SandboxMariaDB) -> None:
    server.execute(f"CREATE DATABASE IF NOT EXISTS {SYSBENCH_DB}")
    subprocess.run(sysbench(server, "prepare"), check=True, capture_output=True)


def start_load(server: SandboxMariaDB, rate: int, seconds: float, base: Path) -> subprocess.Popen:
    """sysbench oltp_write_only at a fixed rate, bounded by --time; the tables are prepared first."""
    prepare_load(server)
    return subprocess.Popen(sysbench(server, "--threads=2", f"--rate={rate}", f"--time={int(seconds) + 60}", "run"),
                            stdout=(base / "sysbench.log").open("w"), stderr=subprocess.STDOUT)


def stop_child(process: subprocess.Popen | None) -> None:
    if process and process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def run_window(args, meter: Meter, ours: Ours, peer: Exporter, busy: cpus.Busy | None,
               log: StatementLog | None = None) -> dict:
    sides = {"ours": Side(OURS, OURS), "peer": Side(PEER, NO_CONNECTION)}
    calls = [("ours", ours.poll), ("peer", peer.scrape)]
    for side in sides.values():
        side.start = meter.totals(side.user)
    if busy:
        busy.since()
    start = time.monotonic()
    for slot in range(int(args.window // args.interval)):
        for half, (name, call) in enumerate(calls):
            sleep_until(start + slot * args.interval + (0.25 + 0.5 * half) * args.interval)
            side = sides[name]
            threads, before = meter.thread_cpu(), meter.totals(side.user)[1]
            cpu, kept = call()
            time.sleep(SETTLE)
            if kept is None:
                continue  # not a poll (see Ours.poll)
            side.call_ms.append((meter.totals(side.user)[1] - before) / 1e9)
            side.add_server(cpu_by_user(threads, meter.thread_cpu()))
            if log and name == "ours":
                log.after_poll()
            side.calls, side.cpu, side.values = side.calls + 1, side.cpu + cpu, side.values + kept
    sleep_until(start + args.window)
    others, stolen = busy.since() if busy else (float("nan"), float("nan"))
    figures = {name: side.finish(meter.totals(side.user)) for name, side in sides.items()}
    return figures | {"others": others, "stolen": stolen, "load": os.getloadavg()[0]}


def cpu_by_user(start: dict[int, tuple[str, int, int]],
                end: dict[int, tuple[str, int, int]]) -> dict[str, tuple[int, int]]:
    """(ns of server CPU, ns waited for a CPU) per user between two Meter.thread_cpu() readings (a
    thread counts for the user it served at the end, else at the start)."""
    spent: dict[str, tuple[int, int]] = {}
    for tid, (user, ns, waited) in end.items():
        was_user, was, was_waited = start.get(tid, (NO_CONNECTION, 0, 0))
        who = user or was_user
        cpu, wait = spent.get(who, (0, 0))
        spent[who] = (cpu + ns - was, wait + waited - was_waited)
    return spent


def sleep_until(moment: float) -> None:
    time.sleep(max(0.0, moment - time.monotonic()))


def print_window(index: int, figures: dict) -> None:
    for name in ("ours", "peer"):
        f = figures[name]
        print(f"  window {index + 1} {name:<4} calls {f['calls']:>3}  statements {f['statements']:5.2f}  "
              f"server ms {f['ms']:6.3f}  connects {f['connects']:4.2f}  client CPU ms {f['cpu_ms']:6.2f}  "
              f"values {f['values']:6.1f}  (median call {f['median_ms']:6.3f} ms)"
              f"  server CPU ms {f['server_cpu_ms']:6.3f}  waited for a CPU ms {f['cpu_wait_ms']:6.3f}", flush=True)
    print(f"  window {index + 1} ratio ours/peer server time {ratio(figures):.2f}, of the median calls"
          f" {ratio(figures, 'median_ms'):.2f}, of server CPU {ratio(figures, 'server_cpu_ms'):.2f}"
          f"  (others on MariaDB's CPU {figures['others']:.0%}, stolen {figures['stolen']:.0%};"
          f" load average {figures['load']:.2f}){'' if waited_little(figures) else '  WAITED FOR A CPU'}",
          flush=True)


def waited_little(figures: dict) -> bool:
    """Whether our server thread waited for a CPU at most WAITED of our statement time."""
    return figures["ours"]["cpu_wait_ms"] <= WAITED * figures["ours"]["ms"]


def ratio(figures: dict, key: str = "ms") -> float:
    """Ours over the peer's, within one window; "ms" is the mean, all sources counted."""
    return figures["ours"][key] / figures["peer"][key] if figures["peer"][key] else float("nan")


def spread(values: list[float]) -> str:
    return f"min {min(values):.3f}  median {statistics.median(values):.3f}  max {max(values):.3f}"


def summary(windows: list[dict]) -> None:
    print("\nper poll / per scrape, over the windows (min / median / max):")
    for key in ("statements", "ms", "median_ms", "server_cpu_ms", "cpu_wait_ms", "connects", "cpu_ms", "values"):
        for name in ("ours", "peer"):
            print(f"  {name:<4} {key:<10} {spread([w[name][key] for w in windows])}")
    ratios = [ratio(w) for w in windows]
    medians = [ratio(w, "median_ms") for w in windows]
    print(f"ratio ours/peer server statement time, per window: {', '.join(f'{r:.2f}' for r in ratios)}")
    print(f"  the same of the median poll/scrape (robust to a descheduled statement; leaves out the 60 s"
          f" sources): {', '.join(f'{r:.2f}' for r in medians)}")
    cpu = [ratio(w, "server_cpu_ms") for w in windows]
    print(f"  of the server threads' CPU (connection set-up included): {', '.join(f'{r:.2f}' for r in cpu)},"
          f" median {statistics.median(cpu):.2f}")
    others = ", ".join(f"{w['others']:.0%}" for w in windows)
    loads = ", ".join(f"{w['load']:.2f}" for w in windows)
    print(f"others' share of MariaDB's CPU, per window: {others}; load average {loads}")
    waited = sum(not waited_little(w) for w in windows)
    if waited:
        print(f"in {waited} of {len(windows)} windows our server thread waited for a CPU over {WAITED:.0%} of our"
              f" statement time: statement time there counts waiting, the server threads' CPU does not")
    median = statistics.median(ratios)
    print(f"goal (ratio <= {GOAL}): {'met' if median <= GOAL else 'MISSED'}, median {median:.2f}"
          f" (min {min(ratios):.2f}, max {max(ratios):.2f})")


def measure(meter: Meter, user: str, repeat: int, call) -> tuple[float, float, float]:
    """Statements, server ms and connects per call of call()."""
    before = meter.totals(user)
    for _ in range(repeat):
        call()
    after = meter.totals(user)
    count, picos, connects = (a - b for a, b in zip(after, before, strict=True))
    return count / repeat, picos / 1e9 / repeat, connects / repeat


def source_table(args, meter: Meter, ours: Ours, peer: Exporter, windows: list[dict]) -> None:
    """Each of our sources alone (on the pooled connection), each part of our shared statement, then
    each exporter collector alone."""
    target = Target.from_server(ours.server)
    print(f"\nper source, {args.repeat} calls each, under the same load, each source alone with its own"
          f" statements (a poll shares one among several, below); 'per poll' spreads a slower source over"
          f" the {args.interval:g} s polls of its interval:")
    print(f"  {'ours: source':<34} {'stmts':>6} {'ms/call':>8} {'every':>6} {'ms/poll':>8} {'values':>7}")
    sources = [s for s in registry.all_sources() if s.kind == "mysql"]  # what the server pays
    readings = {}  # as in a poll: a source that derives its values from an earlier one's spends nothing
    for source in sources:
        entry = POOL.get(target)
        if source.unsupported_reason(entry.info):
            POOL.put(target, entry)
            continue
        readings[source.name] = read(source, entry, readings)
        values = len(readings[source.name].values)
        count, ms, _ = measure(meter, OURS, args.repeat, lambda s=source, e=entry: read(s, e, readings))
        POOL.put(target, entry)
        every = source.interval_for(int(args.interval), entry.info.flavor, entry.info.version_tuple)
        if readings[source.name].quiet and source.quiet_interval:
            every = max(every, source.quiet_interval)  # nothing of its kind here (no replication channel)
        print(f"  {source.name:<34} {count:>6.2f} {ms:>8.3f} {every:>5}s {ms * args.interval / every:>8.3f}"
              f" {values:>7}")
    part_table(args, meter, target, sources, windows, frozenset(name for name, r in readings.items() if r.quiet))
    print(f"  {'peer: collector (one scrape each)':<34} {'stmts':>6} {'ms/call':>8} {'':>6} {'':>8} {'values':>7}")
    for collector in PEER_COLLECTORS:
        values = peer.scrape((collector,))[1]
        count, ms, connects = measure(meter, PEER, args.repeat, lambda c=collector: peer.scrape((c,)))
        print(f"  {collector:<34} {count:>6.2f} {ms:>8.3f} {'':>6} {'':>8} {values:>7}"
              f"   ({connects:.2f} connects; each scrape connects and sets up its session)")


def part_table(args, meter: Meter, target: Target, sources: list, windows: list[dict], quiet: frozenset[str]) -> None:
    """What each part of the shared statement costs, and the ratio its absence would give."""
    entry = POOL.get(target)
    try:
        found = statement_parts.parts(entry.info, sources, int(args.interval), quiet)
        whole, each = statement_parts.costs(entry.conn, lambda: meter.totals(OURS)[1], found,
                                            int(args.interval), args.repeat)
    finally:
        POOL.put(target, entry)
    medians = {name: statistics.median(w[name]["ms"] for w in windows) for name in ("ours", "peer")}
    statement_parts.print_table(whole, each, int(args.interval), medians["ours"], medians["peer"], args.repeat)


def exit_on_sigterm() -> None:
    """A SIGTERM (a timeout, a Ctrl-C'd parent) runs the finally blocks that stop our children."""
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))


@contextmanager
def loaded_server(prefix: str, rate: int, seconds: float, shared_cpus: bool = False, first: bool = True):
    """(server, exporter, CPU split): a private MariaDB under the write load, both monitor users, the
    exporter scraping it; MariaDB on a CPU of its own, running first there (unless first is False),
    unless shared_cpus. Everything stopped after."""
    base = Path(tempfile.mkdtemp(prefix=prefix))
    server, load, peer = SandboxMariaDB(base / "data"), None, None
    split = None if shared_cpus else cpus.split()
    if split:  # this process, its Postgres and Redis, and the children it starts later: the monitors' CPUs
        cpus.pin_tree(os.getpid(), split[1])
        cpus.pin_embedded(split[1])
    try:
        server.start()
        if split:
            cpus.pin_tree(server.process.pid, split[0])
            if first and not cpus.prioritize(server.process.pid):
                print("MariaDB left in the ordinary scheduling class: the real-time one needs CAP_SYS_NICE", flush=True)
        server.create_monitor_user(OURS, PASSWORD)
        server.create_monitor_user(PEER, PASSWORD)
        load = start_load(server, rate, seconds, base)
        peer = Exporter(server, base)
        yield server, peer, split
    finally:
        POOL.close_all()
        stop_child(peer.process if peer else None)
        stop_child(load)
        server.stop()
        shutil.rmtree(base, ignore_errors=True)


def main() -> None:
    args = parse_args()
    exit_on_sigterm()
    call_command("migrate", verbosity=0)
    total = args.windows * args.window + 120
    with loaded_server("bench-peer-cost-", args.rate, total, args.shared_cpus, not args.no_first) as (
            server, peer, split):
        run(args, server, peer, split)


def run(args, server: SandboxMariaDB, peer: Exporter, split: tuple | None) -> None:
    meter, ours = Meter(server), Ours(server, args.interval)
    version = server.execute("SELECT VERSION()")[0][0]
    print(f"MariaDB {version}, sysbench oltp_write_only at {args.rate} tx/s; peer: {peer.version}"
          f" ({', '.join(PEER_COLLECTORS)}); every {args.interval:g} s; {args.windows} windows of {args.window:g} s;"
          f" {os.cpu_count()} CPUs, load average at start {os.getloadavg()[0]:.2f}", flush=True)
    print(f"MariaDB on CPU {cpus.describe(split[0])}{'' if args.no_first else ', running first there'}; the"
          f" monitors, sysbench, Postgres and Redis on CPU {cpus.describe(split[1])}" if split
          else "MariaDB shares the CPUs with the monitors (--shared-cpus)")
    log = StatementLog(meter) if args.per_statement else None
    ours.poll(), peer.scrape()  # connect, baselines: steady state is what is measured
    if log:
        log.forget()
    time.sleep(args.interval)  # the first window's first poll must find its sources due
    windows = []
    busy = cpus.Busy(split[0], server.process.pid) if split else None
    for index in range(args.windows):
        figures = run_window(args, meter, ours, peer, busy, log)
        print_window(index, figures)
        windows.append(figures)
    summary(windows)
    if log:
        log.print()
    source_table(args, meter, ours, peer, windows)
    print(f"load average at the end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
