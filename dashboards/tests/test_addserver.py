"""manage.py addserver: the page's validation, from the command line."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from servers.models import Server

pytestmark = pytest.mark.django_db


def addserver(*args: str) -> str:
    out = StringIO()
    call_command("addserver", *args, stdout=out)
    return out.getvalue()


@pytest.fixture(autouse=True)
def password_env(monkeypatch):
    monkeypatch.setenv("SANDBOX_PW", "s3cret!")


def test_it_adds_a_server_and_stores_what_check_detects(mariadb):
    out = addserver("sandbox", "--host", "127.0.0.1", "--port", str(mariadb.port), "--user", "steady",
                    "--password-env", "SANDBOX_PW", "--tag", "test", "--tag", "local", "--interval", "5", "--check")
    assert "sandbox: connection OK: MariaDB" in out
    assert "performance_schema: ON" in out
    # MariaDB 10.5.9+ (the suite's): named as docs/privileges.md grants them there, REPLICATION CLIENT's new names.
    assert "privileges: all present (PROCESS, BINLOG MONITOR, SLAVE MONITOR, SELECT ON performance_schema.*)" in out
    assert "s3cret!" not in out
    server = Server.objects.get(name="sandbox")
    assert (server.flavor, server.tags, server.poll_interval, server.password) == ("mariadb", ["test", "local"], 5,
                                                                                  "s3cret!")
    assert server.version in out


def test_it_adds_over_a_socket(mariadb):
    addserver("sock", "--socket", mariadb.socket, "--user", "steady", "--password-env", "SANDBOX_PW", "--check")
    assert Server.objects.get(name="sock").address == mariadb.socket


def test_it_adds_a_socket_login_without_a_password(mariadb):
    """A user with no password (as MariaDB's unix_socket authentication lets the machine's own users in) over the
    socket: no --password-env is needed, the check connects, and nothing is stored to send anywhere."""
    mariadb.create_monitor_user("nopw", "")
    out = addserver("local-sock", "--socket", mariadb.socket, "--user", "nopw", "--check")
    assert "local-sock: connection OK: MariaDB" in out
    server = Server.objects.get(name="local-sock")
    assert (server.address, server.password) == (mariadb.socket, "")


def test_it_saves_without_connecting_when_not_asked_to_check():
    addserver("later", "--host", "db.example", "--user", "steady", "--password-env", "SANDBOX_PW", "--disabled")
    server = Server.objects.get(name="later")
    assert not server.enabled and server.version == ""


def test_it_refuses_a_failing_check_and_saves_nothing(mariadb, monkeypatch):
    monkeypatch.setenv("BAD_PW", "wrong-pw")
    with pytest.raises(CommandError, match="not saved: the connection test failed"):
        addserver("bad", "--host", "127.0.0.1", "--port", str(mariadb.port), "--user", "steady",
                  "--password-env", "BAD_PW", "--check")
    assert not Server.objects.exists()


@pytest.mark.parametrize("args, message", [
    (["--user", "u", "--password-env", "NOT_SET_ANYWHERE"], "NOT_SET_ANYWHERE is empty or not set"),
    (["--host", "h", "--user", "u"], "Give --password-env VAR, the environment variable holding the monitoring"),
    (["--user", "u", "--password-env", "SANDBOX_PW"], "--host: Give a host (and port), or a socket path"),
    (["--host", "h", "--port", "0", "--user", "u", "--password-env", "SANDBOX_PW"], "--port: The port must be"),
    (["--host", "h", "--interval", "0", "--user", "u", "--password-env", "SANDBOX_PW"],
     "--interval: The interval must be a whole number of seconds (1 to 3600)"),
])
def test_it_explains_bad_input(args, message):
    with pytest.raises(CommandError) as err:
        addserver("x", *args)
    assert message in str(err.value)
    assert not Server.objects.exists()


def test_it_refuses_a_duplicate_name():
    Server.objects.create(name="dup", host="first", user="u", password="p")
    with pytest.raises(CommandError, match="NAME: A server with this name already exists"):
        addserver("dup", "--host", "second", "--user", "u", "--password-env", "SANDBOX_PW")
    assert Server.objects.get(name="dup").host == "first"


def test_it_checks_and_stores_the_node_exporter_url(mariadb, node_exporter_url):
    out = addserver("with-host", "--host", "127.0.0.1", "--port", str(mariadb.port), "--user", "steady",
                    "--password-env", "SANDBOX_PW", "--node-exporter", node_exporter_url, "--check")
    cpus = len([line for line in open("/proc/stat") if line[:3] == "cpu" and line[3].isdigit()])
    assert f"with-host: node_exporter OK: {node_exporter_url}: {cpus} CPUs" in out
    assert Server.objects.get(name="with-host").node_exporter_url == node_exporter_url


def test_a_node_exporter_that_does_not_answer_fails_the_check(mariadb):
    from testing.mariadb import free_port

    url = f"http://127.0.0.1:{free_port()}/metrics"
    with pytest.raises(CommandError, match="connection test failed"):
        addserver("host-down", "--host", "127.0.0.1", "--port", str(mariadb.port), "--user", "steady",
                  "--password-env", "SANDBOX_PW", "--node-exporter", url, "--check")
    assert not Server.objects.filter(name="host-down").exists()


def test_a_node_exporter_url_must_be_a_url():
    with pytest.raises(CommandError, match="--node-exporter: Enter a valid URL"):
        addserver("bad-url", "--host", "h", "--user", "u", "--password-env", "SANDBOX_PW",
                  "--node-exporter", "db1 port 9100")


def test_check_names_what_the_server_leaves_off_and_how_to_turn_it_on(mariadb):
    # The suite's MariaDB leaves the TPS counters off as a default one does; the consumer is turned off here.
    consumer = "UPDATE performance_schema.setup_consumers SET ENABLED = '{}' WHERE NAME = 'events_statements_current'"
    mariadb.execute(consumer.format("NO"))
    try:
        out = addserver("weak", "--host", "127.0.0.1", "--port", str(mariadb.port), "--user", "steady",
                        "--password-env", "SANDBOX_PW", "--check")
    finally:
        mariadb.execute(consumer.format("YES"))
    lines = out.splitlines()
    assert ("weak: TPS = (Com_commit + Com_rollback) per second: explicit transactions only, autocommit statements "
            "are not counted on this server") in lines
    assert any(line.startswith("weak: WEAKENED TPS: ") for line in lines)
    assert any("UPDATE performance_schema.setup_instruments SET ENABLED='YES' WHERE NAME='transaction'" in line
               for line in lines)
    assert any(line.startswith("weak: WEAKENED the purge holder's statement: performance_schema consumer "
                               "events_statements_current off") for line in lines)
    assert ("weak:   run UPDATE performance_schema.setup_consumers SET ENABLED='YES' WHERE NAME IN "
            "('events_statements_current') (and add performance-schema-consumer-events-statements-current=ON to "
            "the server configuration)") in lines
    assert Server.objects.filter(name="weak").exists()  # said, not refused


def test_a_name_with_a_control_character_is_refused_on_the_page_and_here(admin_client):
    """"db\\x01" was saved by the form and written raw into fleet.csv, while NUL was refused."""
    with pytest.raises(CommandError) as refused:
        addserver("db\x01x\x1b", "--host", "127.0.0.1", "--user", "steady", "--password-env", "SANDBOX_PW")
    assert "A name cannot hold control characters (U+0001, U+001B): use letters, digits, spaces and punctuation." \
        in str(refused.value)
    post = {"name": "db\x7f", "host": "127.0.0.1", "port": "3306", "user": "steady", "password": "x",
            "tls_mode": "preferred", "poll_interval": "10", "statements_interval": "60", "enabled": "on"}
    answer = admin_client.post("/servers/add/", post)
    assert answer.status_code == 200 and "A name cannot hold control characters (U+007F)" in answer.content.decode()
    assert not Server.objects.exists()
    addserver("db 1 (ü-é)", "--host", "127.0.0.1", "--user", "steady", "--password-env", "SANDBOX_PW")
    assert Server.objects.get().name == "db 1 (ü-é)"


@pytest.mark.parametrize("args, message", [
    (["--host", "db\x1b[31m", "--password-env", "SANDBOX_PW"],
     "--host: The host cannot hold control characters (U+001B)"),
    (["--socket", "/run/a\nb.sock"], "--socket: The socket cannot hold control characters (U+000A)"),
    (["--host", "h", "--user", "x\u202eu", "--password-env", "SANDBOX_PW"],
     "--user: The user cannot hold control characters (U+202E)"),
])
def test_it_refuses_control_characters_in_the_address_and_user(args, message):
    """A host, socket or user of "\\x1b[31m", a line break or a bidi override was saved and shown as it was."""
    with pytest.raises(CommandError) as refused:
        addserver("x", "--user", "steady", *args)
    assert f"{message}: use letters, digits, spaces and punctuation." in str(refused.value)
    assert not Server.objects.exists()


def test_it_saves_a_twin_as_the_page_does_and_names_a_disabled_one_with_where_to_resume_it():
    Server.objects.create(name="first", host="db.example", port=3306, user="steady", poll_interval=10)
    old = Server.objects.create(name="old", host="db.example", port=3306, user="steady", poll_interval=10,
                                enabled=False)
    Server.objects.create(name="elsewhere", host="db.example", port=3307, user="steady", poll_interval=10)
    err = StringIO()
    call_command("addserver", "new", "--host", "db.example", "--user", "steady", "--password-env", "SANDBOX_PW",
                 stdout=StringIO(), stderr=err)
    assert Server.objects.filter(name="new").exists()
    # first and new are polled; old is not, and is named apart with its edit page.
    assert err.getvalue().strip() == (
        "'new' is the same MySQL server as 'first' (same address): it is polled twice. "
        f"'old' (disabled: /servers/{old.pk}/edit/) is this address too: to keep one history of the server, "
        "resume it there (tick Enabled) rather than keep two entries of it.")


def test_it_says_nothing_of_twins_at_another_address():
    Server.objects.create(name="first", host="db.example", port=3307, user="steady", poll_interval=10)
    err = StringIO()
    call_command("addserver", "new", "--host", "db.example", "--user", "steady", "--password-env", "SANDBOX_PW",
                 stdout=StringIO(), stderr=err)
    assert err.getvalue() == ""
