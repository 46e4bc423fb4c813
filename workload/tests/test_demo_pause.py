"""Pausing the demo's load from another process: the real driver on the suite's MariaDB goes quiet and comes back.

TPS here is the server's own count (Com_commit), not the driver's; the pause goes through the same flag
file `manage.py demo pause|resume` and the demo server's button set.
"""

import io
import threading
import time

import pytest
from django.contrib.auth.models import Group
from django.core.management import call_command
from django.test import Client

from monitor.roles import OPERATOR, VIEWER
from servers.models import Server
from workload.driver import StressDriver, StressOptions
from workload.pause import demo_flag


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
