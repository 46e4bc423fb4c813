"""manage.py up: the whole product in one command.

Starts (or reuses) the embedded PostgreSQL and Redis under var/ when no
DATABASE_URL / REDIS_URL is set, migrates, collects static files, creates the
admin user on first start, then runs web (gunicorn + whitenoise), a Celery
worker, Celery beat and the watchdog as one supervised group
(monitor/runtime/supervisor.py): whatever dies, a child or an embedded server, is
started again with a backoff, and a crash loop is mailed. Ctrl-C or SIGTERM stops
the group and the embedded servers.
"""

import fcntl
import http.client
import os
import secrets
import signal
import socket
import sys
import time
import urllib.request
from functools import partial
from pathlib import Path

import redis
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group as AuthGroup
from django.core.mail import send_mail
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import OperationalError
from redis.backoff import NoBackoff
from redis.retry import Retry

from alerts.recipients import default_recipients, invalid
from monitor.roles import ADMIN
from monitor.runtime import demo, embedded
from monitor.runtime.supervisor import Child, Daemon, Group

READY_TIMEOUT = 90  # seconds for gunicorn to answer the login page


class Command(BaseCommand):
    help = "Run SteadyState: web, Celery worker and beat (and the embedded Postgres/Redis). Ctrl-C stops all."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default=settings.LISTEN_HOST,
                            help="address gunicorn binds (env LISTEN_HOST, default 127.0.0.1)")
        parser.add_argument("--port", type=int, default=settings.PORT,
                            help="port gunicorn binds (env PORT, default 8000)")
        parser.add_argument("--web-workers", type=int, default=settings.WEB_WORKERS,
                            help="gunicorn worker processes (env WEB_WORKERS, default 2)")
        parser.add_argument("--worker-concurrency", type=int, default=settings.WORKER_CONCURRENCY,
                            help="Celery worker threads polling servers (env WORKER_CONCURRENCY, default 16)")
        demo.add_up_arguments(parser)

    def handle(self, *args, **opts) -> None:
        started = time.monotonic()
        var = Path(settings.VAR_DIR)
        lock = hold_lock(var / "up.lock")
        # Explicit for SIGINT too: a shell starting `up` in the background ignores it.
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, raise_interrupt)
        url = f"http://{opts['host'] if opts['host'] != '0.0.0.0' else '127.0.0.1'}:{opts['port']}/"
        check_port_free(opts["host"], opts["port"])
        try:
            env = self.prepare(var, url)
            children = self.embedded_daemons(var) + self.children(opts, env, var)
            group = Group(children, log=self.say, on_crash_loop=partial(crash_loop_mail, site_url=env["SITE_URL"]))
            group.start()
            failed = self.supervise(group, url, started)
        except KeyboardInterrupt:
            failed = False
        finally:
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not cut the cleanup short
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            if "group" in locals():
                self.say("up: stopping web, worker and beat ...")
                group.stop()
            self.stop_embedded(var)
            lock.close()
        self.say("up: stopped, nothing left running.")
        if failed:
            sys.exit(1)

    def prepare(self, var: Path, url: str) -> dict[str, str]:
        """Embedded servers, migrations, static files, admin user; returns the children's environment."""
        env = dict(os.environ, DJANGO_SETTINGS_MODULE="monitor.settings", PYTHONUNBUFFERED="1")
        env.setdefault("SITE_URL", url.rstrip("/"))
        if settings.EMBEDDED_DB:
            env["DATABASE_URL"] = embedded.postgres_url(var)
            self.say(f"up: embedded PostgreSQL in {var / 'pg'}")
        if settings.EMBEDDED_REDIS:
            env["REDIS_URL"] = embedded.redis_start(var)
            self.say(f"up: embedded Redis on {embedded.redis_socket(var)}")
        check_reachable(env["REDIS_URL"] if settings.EMBEDDED_REDIS else settings.REDIS_URL)
        try:
            call_command("migrate", interactive=False, verbosity=0)
        except OperationalError as exc:
            raise CommandError(f"Cannot reach PostgreSQL ({exc.args[0] if exc.args else exc}). "
                               "Check DATABASE_URL, or unset it to use the embedded PostgreSQL.") from None
        call_command("collectstatic", interactive=False, verbosity=0)
        self.say("up: database migrated, static files collected")
        self.ensure_admin(var)
        return env

    def children(self, opts: dict, env: dict[str, str], var: Path) -> list[Child | Daemon]:
        py = sys.executable
        level = settings.LOG_LEVEL
        # Beat sends a dispatch every second: at INFO the worker and beat would
        # log three lines a second and bury what matters.
        celery_level = settings.CELERY_LOG_LEVEL
        children: list[Child | Daemon] = [
            Child("web", [py, "-m", "gunicorn", "monitor.wsgi:application", *gunicorn_args(opts, level)], env),
            Child("worker", [py, "-m", "celery", "-A", "monitor", "worker", "--pool", "threads",
                             "--concurrency", str(opts["worker_concurrency"]), "--loglevel", celery_level,
                             "--hostname", f"worker-{os.getpid()}@%h", "--without-mingle", "--without-gossip"], env),
            Child("beat", [py, "-m", "celery", "-A", "monitor", "beat", "--loglevel", celery_level,
                           "--schedule", str(var / "celerybeat-schedule")], env),
            # Outside Celery on purpose: it must notice when the worker or beat stops.
            Child("watchdog", [py, str(settings.BASE_DIR / "manage.py"), "watchdog"], env),
        ]
        return children + demo.up_children(opts, env)  # the sandbox MariaDB demo, server 'local'

    def embedded_daemons(self, var: Path) -> list[Daemon]:
        """The embedded Redis and PostgreSQL, watched and started again should they die."""
        daemons = []
        if settings.EMBEDDED_REDIS:
            daemons.append(Daemon("redis", lambda: embedded.redis_running(var), lambda: embedded.redis_start(var)))
        if settings.EMBEDDED_DB:
            daemons.append(Daemon("postgresql", lambda: embedded.postgres_alive(var),
                                  lambda: embedded.postgres_restart(var)))
        return daemons

    def supervise(self, group: Group, url: str, started: float) -> bool:
        """Wait for the web to answer, then watch the group (restarting what dies); True if the web never came up."""
        ready = False
        while True:
            group.watch()
            if not ready and answers(url + "accounts/login/"):
                ready = True
                self.say(f"up: SteadyState is running at {url} (ready in {time.monotonic() - started:.1f} s). "
                         "Ctrl-C stops it.")
            elif not ready and time.monotonic() - started > READY_TIMEOUT:
                self.say(f"up: the web server did not answer {url} within {READY_TIMEOUT} s: stopping")
                return True
            time.sleep(0.2 if not ready else 0.5)

    def ensure_admin(self, var: Path) -> None:
        """On first start create 'admin' with a random password, print it once and keep it in var/."""
        users = get_user_model().objects
        if users.filter(is_superuser=True).exists():
            self.say(f"up: log in as your admin user (first password in {var / 'admin-password'})")
            return
        password = secrets.token_urlsafe(12)
        admin = users.create_superuser("admin", "", password)
        admin.groups.add(AuthGroup.objects.get(name=ADMIN))  # a superuser is an admin anyway: this shows it
        path = var / "admin-password"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(password + "\n")
        os.chmod(path, 0o600)
        self.say(f"up: created the admin user. Log in as: admin / {password}  (also in {path}, mode 0600)")

    def stop_embedded(self, var: Path) -> None:
        began, stopped = time.monotonic(), []
        if settings.EMBEDDED_REDIS:
            embedded.redis_stop(var)
            stopped.append("Redis")
        if settings.EMBEDDED_DB:
            embedded.postgres_stop(var)
            stopped.insert(0, "PostgreSQL")
        if stopped:
            self.say(f"up: embedded {' and '.join(stopped)} stopped ({time.monotonic() - began:.1f} s)")

    def say(self, text: str) -> None:
        self.stdout.write(text)
        self.stdout.flush()


def crash_loop_mail(name: str, text: str, site_url: str = "") -> None:
    """Straight to ALERT_RECIPIENTS over SMTP: the worker that mails the alert outbox may be what crashes.

    site_url: the address the children were given (up's own URL when SITE_URL is unset), not this
    process's setting, which was read before `up` knew its port.
    """
    recipients = [a for a in default_recipients() if a not in invalid(default_recipients())]
    if recipients:
        send_mail(f"[SteadyState] {name} keeps crashing", f"{text}\n\n{site_url or settings.SITE_URL}/\n",
                  settings.DEFAULT_FROM_EMAIL, recipients)


def gunicorn_args(opts: dict, level: str) -> list[str]:
    """gunicorn's options under `up`: threaded workers (monitor/gunicorn_conf.py) so long CSV streams complete."""
    return ["--config", str(settings.BASE_DIR / "monitor" / "gunicorn_conf.py"),
            "--bind", f"{opts['host']}:{opts['port']}", "--workers", str(opts["web_workers"]),
            "--access-logfile", "-", "--log-level", level.lower()]


def raise_interrupt(signum, frame) -> None:
    raise KeyboardInterrupt


def hold_lock(path: Path):
    """One `up` per var/ directory: a second one would stop the first one's servers."""
    f = open(path, "a+")  # held open for the life of `up`
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise CommandError(f"Another `manage.py up` is already running on {path.parent}: stop it first "
                           "(or point STEADYSTATE_VAR elsewhere).") from None
    return f


def check_port_free(host: str, port: int) -> None:
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError as exc:
            raise CommandError(f"Cannot listen on {host}:{port} ({exc.strerror}): another program uses it; "
                               "choose another port with PORT=8001 or `manage.py up --port 8001`.") from None


def check_reachable(redis_url: str) -> None:
    try:
        redis.Redis.from_url(redis_url, socket_timeout=3, retry=Retry(NoBackoff(), 0)).ping()
    except (redis.RedisError, OSError) as exc:
        where = redis_url.split("@")[-1]  # never the password of the URL
        raise CommandError(f"Cannot reach Redis at {where} ({exc}). "
                           "Check REDIS_URL, or unset it to use the embedded Redis.") from None


def answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status == 200
    except (OSError, http.client.HTTPException):  # another program on the port (an SMTP server's greeting)
        return False
