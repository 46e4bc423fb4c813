"""What one MariaDB's polls hold, recorded for bench/dashboards.py: every source's metric names and kinds.

    .venv/bin/python bench/mariadb_shape.py [--out bench/mariadb_shape.json]

Starts a sandbox MariaDB (performance_schema ON, every wait instrument enabled), polls it twice
through the collectors with some DML between, and records each source's sample: its metric names
and which are counters. Every wait instrument the server has (setup_instruments, not only those
that fired) is added to pfs_waits, and every InnoDB latch to innodb_mutex, as a busy server shows them.
"""

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "monitor.settings_test")  # private Postgres + Redis

LATCHES = ("wait/synch/mutex/innodb/", "wait/synch/rwlock/innodb/", "wait/synch/sxlock/innodb/")


def load(server) -> None:
    server.execute("CREATE DATABASE IF NOT EXISTS shape",
                   "CREATE TABLE IF NOT EXISTS shape.t (id INT PRIMARY KEY AUTO_INCREMENT, v INT) ENGINE=InnoDB",
                   *[f"INSERT INTO shape.t (v) VALUES ({i})" for i in range(200)],
                   "UPDATE shape.t SET v = v + 1", "DELETE FROM shape.t WHERE id % 3 = 0",
                   "SELECT COUNT(*) FROM shape.t")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(Path(__file__).with_name("mariadb_shape.json")))
    args = parser.parse_args()
    import django

    django.setup()
    from django.core.management import call_command

    from collectors import registry
    from collectors.batch import poll_server
    from testing.mariadb import SandboxMariaDB
    from testing.servers import make_server

    call_command("migrate", verbosity=0)
    base = Path(tempfile.mkdtemp(prefix="shape-"))
    server = SandboxMariaDB(base / "data", performance_schema=True)
    try:
        server.start()
        server.create_monitor_user()
        server.execute("UPDATE performance_schema.setup_instruments SET ENABLED = 'YES', TIMED = 'YES'"
                       " WHERE NAME LIKE 'wait/%'")
        row = make_server("shape", port=server.port)
        every = [source.name for source in registry.all_sources()]
        first = poll_server(row.pk, only=every)
        load(server)
        result = poll_server(row.pk, only=every)
        health = row.health.sources
        instruments = [name for (name,) in server.execute(
            "SELECT NAME FROM performance_schema.setup_instruments WHERE NAME LIKE 'wait/%' ORDER BY NAME")]
        version = server.execute("SELECT VERSION()")[0][0]
    finally:
        server.stop()
        shutil.rmtree(base, ignore_errors=True)
    sources = {}
    for s in first.sources + result.sources:  # the second poll's deltas; variables are stored on change only
        if s.sample is not None:
            sources[s.name] = {"interval": s.sample.interval, "values": s.sample.values,
                               "counters": sorted(s.sample.counters)}
    shape = {"version": version, "sources": sources, "wait_instruments": instruments,
             "latches": [n for n in instruments if n.startswith(LATCHES)], "health": health}
    Path(args.out).write_text(json.dumps(shape, indent=1, sort_keys=True, default=str) + "\n")
    print(f"{version}: {len(instruments)} wait instruments, {shape['latches'].__len__()} InnoDB latches, "
          + ", ".join(f"{k} {len(v['values'])}" for k, v in sources.items()))


if __name__ == "__main__":
    main()
