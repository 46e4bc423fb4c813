"""manage.py demo pause|resume|status: the demo's load (server 'local') paused or running, from any shell.

The load runs as a child of `manage.py up`; it watches a flag file under var/ (workload.pause),
so this works from another process, as does the button on the demo server's pages.
"""

from django.core.management.base import BaseCommand, CommandParser

from workload.pause import demo_flag, is_paused, set_paused

SAID = {True: "paused: no transaction and no held read view on server 'local' until `manage.py demo resume`",
        False: "running: server 'local' is under the demo's light load (and its read view held every 3 minutes)"}


class Command(BaseCommand):
    help = "Pause or resume the demo's load on server 'local' (started by `manage.py up`), or say which it is."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("action", choices=("pause", "resume", "status"))

    def handle(self, *args, **opts) -> None:
        flag = demo_flag()
        if opts["action"] != "status":
            set_paused(flag, opts["action"] == "pause")
        self.stdout.write(f"demo load {SAID[is_paused(flag)]}")
