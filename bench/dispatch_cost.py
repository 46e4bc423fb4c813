"""CPU of the beat's tick (collectors.tasks.dispatch_due_polls) at fleet size, in the dispatching process.

Registers N servers (private Postgres and Redis of monitor.settings_test; nothing is polled: the
batches the tick would send are counted instead of enqueued), runs a first tick (every server gets
its first due time), then --ticks ticks a second apart in simulated time, and prints the process
CPU per tick and how many batches and polls they dispatched.

    .venv/bin/python bench/dispatch_cost.py --servers 2500
"""

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "monitor.settings_test")  # private Postgres + Redis

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402

from collectors import schedule, tasks  # noqa: E402
from servers.models import Server  # noqa: E402


class CountedBatches:
    """Stands in for the poll_batch task: counts what the tick sends instead of enqueueing it."""

    def __init__(self) -> None:
        self.batches, self.polls = 0, 0

    def apply_async(self, args: list, expires: int) -> None:
        self.batches, self.polls = self.batches + 1, self.polls + len(args[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--servers", type=int, default=2500)
    parser.add_argument("--interval", type=int, default=10)
    parser.add_argument("--ticks", type=int, default=30)
    args = parser.parse_args()
    call_command("migrate", verbosity=0)
    Server.objects.all().delete()
    schedule.reset()
    servers = [Server(name=f"dispatch-{i:05d}", host="127.0.0.1", port=3306, user="steady",
                      poll_interval=args.interval) for i in range(args.servers)]
    for server in servers:
        server.password = "s3cret!"
    Server.objects.bulk_create(servers)
    counted = CountedBatches()
    tasks.poll_batch = counted  # count the batches, poll nothing
    start = time.time()
    tasks.dispatch_due_polls(start)
    cpu = 0.0
    for tick in range(1, args.ticks + 1):
        t0 = time.process_time()
        tasks.dispatch_due_polls(start + tick)
        cpu += time.process_time() - t0
    print(f"{args.servers} servers at {args.interval} s: {cpu * 1000 / args.ticks:.1f} ms CPU a tick "
          f"(this process), {counted.batches} batches of {counted.polls} polls in {args.ticks} ticks; "
          f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
