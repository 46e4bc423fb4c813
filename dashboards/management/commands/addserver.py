"""manage.py addserver: register a monitored server from the command line (same validation as the page)."""

import os

from django.core.management.base import BaseCommand, CommandError, CommandParser

from collectors import tls
from dashboards.server_form import ServerForm, twin_note


class Command(BaseCommand):
    help = "Add a MySQL/MariaDB server to monitor. The password is read from an environment variable."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name", help="a unique name for the server")
        parser.add_argument("--host", default="", help="host name or IP")
        where = parser.add_mutually_exclusive_group()
        where.add_argument("--port", type=int, default=3306, help="TCP port (default 3306)")
        where.add_argument("--socket", default="", help="unix socket path, instead of host and port")
        parser.add_argument("--user", required=True, help="the monitoring user (see docs/privileges.md)")
        parser.add_argument("--password-env", default="", metavar="VAR",
                            help="name of the environment variable holding the password (keeps it out of ps); "
                                 "only a --socket login may go without one")
        parser.add_argument("--tls-mode", choices=tls.MODES, default=tls.PREFERRED,
                            help="TLS to the server (default preferred; verify-* check its certificate)")
        parser.add_argument("--tls-ca", default="", help="CA certificate file (PEM) for verify-ca/verify-identity")
        parser.add_argument("--tls-cert", default="", help="client certificate file (PEM), if the server wants one")
        parser.add_argument("--tls-key", default="", help="the client certificate's key file (PEM)")
        parser.add_argument("--tag", action="append", default=[], help="a tag; repeat for more")
        parser.add_argument("--interval", type=int, default=10, help="seconds between polls (default 10)")
        parser.add_argument("--statements-interval", type=int, default=60,
                            help="seconds between reads of the statement digests (default 60, at least 10)")
        parser.add_argument("--node-exporter", default="", metavar="URL",
                            help="the host's Prometheus node_exporter, e.g. http://db1:9100/metrics (host statistics)")
        parser.add_argument("--disabled", action="store_true", help="register it without polling it yet")
        parser.add_argument("--check", action="store_true",
                            help="test the connection first, print the result and store flavor/version")
        parser.add_argument("--force", action="store_true", help="with --check: save even if the test fails")

    def handle(self, *args, **opts) -> None:
        if not opts["password_env"] and not opts["socket"]:
            raise CommandError("Give --password-env VAR, the environment variable holding the monitoring user's "
                               "password: only a --socket login may go without one.")
        password = os.environ.get(opts["password_env"], "") if opts["password_env"] else ""
        if opts["password_env"] and not password:
            raise CommandError(f"Environment variable {opts['password_env']} is empty or not set: "
                               f"export {opts['password_env']}='...' with the monitoring user's password.")
        form = ServerForm(self.form_data(opts, password))
        if not form.is_valid():
            raise CommandError(f"Server '{opts['name']}' not saved:\n" + describe_errors(form))
        check = None
        if opts["check"]:
            check = form.test_connection()
            for line in check.lines():
                self.stdout.write(f"{opts['name']}: {line}")
            if not check.ok and not opts["force"]:
                raise CommandError(f"Server '{opts['name']}' not saved: the connection test failed "
                                   "(fix it, or add --force to save it anyway).")
        twins = form.duplicates()
        server = form.save(check=check)
        self.stdout.write(self.style.SUCCESS(f"Server '{server.name}' saved ({server.address}, id {server.pk})."))
        if twins:  # saved, as the page saves it, and said as the page says it
            self.stderr.write(self.style.WARNING(twin_note(server, twins)))

    @staticmethod
    def form_data(opts: dict, password: str) -> dict:
        data = {"name": opts["name"], "host": opts["host"], "port": opts["port"], "socket": opts["socket"],
                "user": opts["user"], "password": password, "tags": ",".join(opts["tag"]),
                "tls_mode": opts["tls_mode"], "tls_ca": opts["tls_ca"], "tls_cert": opts["tls_cert"],
                "tls_key": opts["tls_key"],
                "poll_interval": opts["interval"], "node_exporter_url": opts["node_exporter"],
                "statements_interval": opts["statements_interval"]}
        if not opts["disabled"]:
            data["enabled"] = "on"
        return data


OPTION_NAMES = {"__all__": "error", "name": "NAME", "poll_interval": "--interval", "password": "--password-env",
                "node_exporter_url": "--node-exporter", "statements_interval": "--statements-interval"}


def describe_errors(form: ServerForm) -> str:
    lines = []
    for field, errors in form.errors.items():
        label = OPTION_NAMES.get(field, f"--{field.replace('_', '-')}")
        lines += [f"  {label}: {e}" for e in errors]
    return "\n".join(lines)
