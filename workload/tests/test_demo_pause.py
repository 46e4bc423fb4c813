"""Pausing the demo's load from another process: the real driver on the suite's MariaDB goes quiet and comes back.

TPS here is the server's own count (Com_commit), not the driver's; the pause goes through the same flag
file `manage.py demo pause|resume` and the demo server's button set.
"""

import io
import re
import threading
import time

import pytest
from django.contrib.auth.models import Group
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from monitor.roles import OPERATOR, VIEWER
from servers.models import Run, Server
from workload.driver import StressDriver, StressOptions
from workload.pause import demo_flag, set_paused


@pytest.fixture
def var_dir(settings, private_dir):
    settings.VAR_DIR = str(private_dir)
    return private_dir


def commits_over(mariadb, seconds: float) -> float:
    """The server's COMMITs per second over the next `seconds`."""
    before = int(mariadb.execute("SHOW GLOBAL STATUS LIKE 'Com_commit'")[0][1])
    time.sleep(seconds)
    return (int(mariadb.execute("SHOW GLOBAL STATUS LIKE 'Com_commit'")[0][1]) - before) / seconds


def open_views(mariadb, user: str) -> int:
    return int(mariadb.execute("SELECT COUNT(*) FROM information_schema.INNODB_TRX t JOIN information_schema."
                               f"PROCESSLIST p ON p.ID = t.trx_mysql_thread_id WHERE p.USER = '{user}'")[0][0])


def demo(action: str) -> str:
    out = io.StringIO()
    call_command("demo", action, stdout=out)
    return out.getvalue()


@pytest.mark.serial  # compares TPS before and after: other tests in parallel shift it
def test_the_driver_stops_while_paused_and_comes_back_after_resume(mariadb, stress_target, var_dir):
    lines: list[str] = []
    options = StressOptions(mode="rw", concurrency=2, duration=0, interval=0.5, hold_trx=60, hold_every=120,
                            pause_file=str(demo_flag()))
    driver = StressDriver(stress_target, options, report=lines.append)
    driver.prepare()
    stop = threading.Event()
    runner = threading.Thread(target=driver.run, args=(stop,))
    runner.start()
    try:
        time.sleep(1.5)
        running = commits_over(mariadb, 1.5)
        assert open_views(mariadb, stress_target.user) >= 1  # the read view it holds
        assert demo("pause").startswith("demo load paused")
        time.sleep(1.5)  # the flag is read every 0.5 s; a transaction under way finishes
        paused = commits_over(mariadb, 3.0)
        assert open_views(mariadb, stress_target.user) == 0  # the held read view closed too
        assert demo("resume").startswith("demo load running")
        time.sleep(1.0)
        resumed = commits_over(mariadb, 1.5)
    finally:
        stop.set()
        runner.join()
    assert running > 50 and resumed > 0.5 * running, (running, resumed)
    assert paused == 0, paused
    assert "paused: no transaction starts until the pause file is removed" in lines and "resumed" in lines
    assert any("PAUSED" in line for line in lines if " tps " in line)


@pytest.mark.django_db
def test_operators_pause_and_resume_it_from_the_demo_servers_page(django_user_model, var_dir):
    local = Server.objects.create(name="local", host="127.0.0.1", port=3306, user="steady", tags=["demo"])
    other = Server.objects.create(name="db1", host="127.0.0.1", port=3307, user="steady")
    clients = {}
    for role in (VIEWER, OPERATOR):
        user = django_user_model.objects.create_user(f"u-{role}", password="pw")
        user.groups.add(Group.objects.get(name=role))
        clients[role] = Client()
        clients[role].force_login(user)
    page = clients[OPERATOR].get(f"/servers/{local.pk}/stability/").content.decode()
    assert "Demo load running" in page and 'value="pause"' in page
    assert "Demo load" not in clients[OPERATOR].get(f"/servers/{other.pk}/stability/").content.decode()
    url = f"/servers/{local.pk}/demo-load/"
    assert clients[VIEWER].post(url, {"action": "pause"}).status_code == 403 and not demo_flag().exists()
    answer = clients[OPERATOR].post(url, {"action": "pause", "next": f"/servers/{local.pk}/purge/"})
    assert answer.status_code == 302 and answer["Location"] == f"/servers/{local.pk}/purge/"
    assert demo_flag().exists() and "paused" in demo("status")
    page = clients[OPERATOR].get(f"/servers/{local.pk}/purge/").content.decode()
    assert "Demo load paused" in page and 'value="resume"' in page
    assert clients[OPERATOR].post(f"/servers/{other.pk}/demo-load/", {"action": "resume"}).status_code == 404
    clients[OPERATOR].post(url, {"action": "resume"})
    assert not demo_flag().exists()


class PauseOnce(io.StringIO):
    """The stress command's output: pause at its first TPS line, resume at the first one that says PAUSED."""

    def __init__(self, flag):
        super().__init__()
        self.flag, self.paused_at, self.resumed_at = flag, None, None

    def write(self, text):
        if " tps " in text and self.paused_at is None:
            self.paused_at = timezone.now()
            set_paused(self.flag, True)
        elif " tps " in text and "PAUSED" in text and self.resumed_at is None:
            self.resumed_at = timezone.now()
            set_paused(self.flag, False)
        return super().write(text)


@pytest.mark.django_db(transaction=True)  # the driver's pause watcher writes the runs from its own thread
def test_a_pause_ends_the_run_and_a_resume_opens_the_next(server, write_user, var_dir):
    out = PauseOnce(demo_flag())
    call_command("stress", "bench", "--duration", "4", "--interval", "0.5", "--run", "demo load", "--mode", "rw",
                 "--pause-file", str(demo_flag()), *write_user, stdout=out)
    first, second = Run.objects.filter(server=server).order_by("started_at")
    assert first.name == second.name == "demo load"
    # The paused time is in no run: the first ends after the pause began, the next opens after the resume.
    assert out.paused_at <= first.ended_at <= second.started_at and out.resumed_at <= second.started_at
    said = "stress paused: demo load: the load paused; a new run starts when it resumes"
    assert first.annotations.last().text == said
    assert second.ended_at is not None and second.annotations.last().text.startswith("stress end: demo load")
    total = int(re.search(r"completed: (\d+) transactions", out.getvalue()).group(1))
    own = [first.client_figures["transactions"], second.client_figures["transactions"]]
    assert min(own) > 0 and sum(own) <= total  # each run has its own count; none while paused


@pytest.mark.django_db
def test_a_load_paused_from_its_start_opens_no_run_until_it_resumes(server, write_user, var_dir):
    set_paused(demo_flag(), True)
    out = io.StringIO()
    call_command("stress", "bench", "--duration", "1.2", "--interval", "0.5", "--pause-file", str(demo_flag()),
                 *write_user, stdout=out)
    assert not Run.objects.exists()
    assert "paused: the run starts when the load resumes" in out.getvalue()
