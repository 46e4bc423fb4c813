"""What our polling costs the monitored server, read from its own performance_schema.

Starts a private MariaDB (performance_schema ON), polls it as the monitoring user
and reads events_statements_summary_by_user_by_event_name for that user (as root,
so the measuring is not measured): statement count and statement time per poll,
per source and for a full poll of the cheap sources, plus connections per poll.

Anchor: mysqld_exporter (global_status, perf_schema.eventswaits,
info_schema.innodb_metrics, engine_innodb_status) costs an idle MariaDB 10.11
about 4.5 ms of statement time and 11 statements per scrape, reconnecting each time.
Goal: at most half of that per full poll, zero connects per poll in steady state.

    .venv/bin/python bench/poll_cost.py [--polls 50]
"""

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "monitor.settings_test")  # private Postgres + Redis

import django  # noqa: E402

django.setup()

from collectors import registry  # noqa: E402
from collectors.poll import poll_target  # noqa: E402
from collectors.pool import POOL, Target  # noqa: E402
from testing.mariadb import SandboxMariaDB  # noqa: E402

USER = "steady"
CHEAP = ["global_status", "pfs_waits", "history_length", "innodb_metrics"]
# The monitoring user's statements so far: how many, and their time in picoseconds.
USER_STATEMENTS_SQL = (
    "SELECT COALESCE(SUM(COUNT_STAR), 0), COALESCE(SUM(SUM_TIMER_WAIT), 0)"
    " FROM performance_schema.events_statements_summary_by_user_by_event_name WHERE USER = %s"
)
USER_CONNECTIONS_SQL = "SELECT COALESCE(SUM(TOTAL_CONNECTIONS), 0) FROM performance_schema.users WHERE USER = %s"
ANCHOR_MS, ANCHOR_STATEMENTS = 4.5, 11
# An approximation of one mysqld_exporter scrape with the anchor's four collectors, run here
# under the same machine load as ours (the exporter itself is not installed): a new connection,
# its session setting and version query, then each collector's statements.
EXPORTER_LIKE = (
    "SET lock_wait_timeout = 2",
    "SELECT @@version",
    "SHOW GLOBAL STATUS",
    "SELECT EVENT_NAME, COUNT_STAR, SUM_TIMER_WAIT FROM performance_schema.events_waits_summary_global_by_event_name",
    "SELECT column_name FROM information_schema.columns WHERE table_schema = 'information_schema'"
    " AND table_name = 'INNODB_METRICS' AND column_name IN ('status', 'enabled') LIMIT 1",
    "SELECT name, subsystem, type, comment, count FROM information_schema.innodb_metrics WHERE enabled",
    "SHOW ENGINE INNODB STATUS",
)


class Meter:
    """Reads the monitoring user's totals as root over one kept connection."""

    def __init__(self, server: SandboxMariaDB):
        self.conn = server.connect()

    def totals(self) -> tuple[int, int, int]:
        with self.conn.cursor() as cur:
            cur.execute(USER_STATEMENTS_SQL, (USER,))
            count, picos = cur.fetchone()
            cur.execute(USER_CONNECTIONS_SQL, (USER,))
            connects = cur.fetchone()[0]
        return int(count), int(picos), int(connects)

    def measure(self, polls: int, run, rounds: int = 5) -> tuple[float, float, float]:
        """Statements, milliseconds and connects per call of run(): the median of a few rounds.

        The machine is shared, so one round can be slowed by others; the median is what a quiet one costs.
        """
        figures = []
        for _ in range(rounds):
            before = self.totals()
            for _ in range(polls):
                run()
            after = self.totals()
            count, picos, connects = (a - b for a, b in zip(after, before, strict=True))
            figures.append((count / polls, picos / polls / 1e9, connects / polls))
        figures.sort(key=lambda f: f[1])
        return figures[len(figures) // 2]


def exporter_like_scrape(server: SandboxMariaDB) -> None:
    conn = server.connect(USER, "s3cret!")
    try:
        with conn.cursor() as cur:
            for sql in EXPORTER_LIKE:
                cur.execute(sql)
                cur.fetchall()
    finally:
        conn.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--polls", type=int, default=40, help="polls per round (5 rounds, median)")
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="bench-poll-cost-"))
    server = SandboxMariaDB(base / "data")
    try:
        server.start()
        server.create_monitor_user(USER, "s3cret!")
        run(server, args.polls)
    finally:
        POOL.close_all()
        server.stop()
        shutil.rmtree(base, ignore_errors=True)


def run(server: SandboxMariaDB, polls: int) -> None:
    target = Target(1, "bench", "127.0.0.1", server.port, "", USER, "s3cret!")
    meter = Meter(server)
    entry = POOL.get(target)
    POOL.put(target, entry)
    print(f"server: {entry.info.label}; median of 5 rounds of {polls} polls; statement time from performance_schema")
    print(f"{'source':<16} {'statements/poll':>16} {'ms/poll':>9} {'connects/poll':>14}")
    for source in registry.SOURCES.values():
        pooled = POOL.get(target)
        count, ms, connects = meter.measure(polls, lambda s=source, p=pooled: s.collect(p.conn, p.info))
        POOL.put(target, pooled)
        print(f"{source.name:<16} {count:>16.2f} {ms:>9.3f} {connects:>14.2f}")
    poll_target(target, 10, only=CHEAP)  # baselines in Redis, as in steady state
    cpu0 = time.process_time()
    count, ms, connects = meter.measure(polls, lambda: poll_target(target, 10, only=CHEAP))
    collector_cpu = (time.process_time() - cpu0) / (5 * polls) * 1000
    print(f"{'full cheap poll':<16} {count:>16.2f} {ms:>9.3f} {connects:>14.2f}   ({' + '.join(CHEAP)})")
    ref_count, ref_ms, ref_connects = meter.measure(polls, lambda: exporter_like_scrape(server))
    print(f"{'exporter-like':<16} {ref_count:>16.2f} {ref_ms:>9.3f} {ref_connects:>14.2f}"
          "   (approximated scrape, same machine and load; see EXPORTER_LIKE)")
    print(f"ours / exporter-like statement time: {ms / ref_ms:.2f}")
    print(f"anchor mysqld_exporter: {ANCHOR_STATEMENTS} statements, {ANCHOR_MS} ms, 1 connect per scrape;"
          f" goal <= {ANCHOR_MS / 2} ms, 0 connects")
    print(f"collector side: {collector_cpu:.2f} ms of Python CPU per full cheap poll (parse, deltas, Redis;"
          " without the store write)")
    verdict = "met" if ms <= ANCHOR_MS / 2 and connects == 0 else "MISSED"
    print(f"goal {verdict}: {ms:.3f} ms, {count:.2f} statements, {connects:.2f} connects per full poll")


if __name__ == "__main__":
    main()
