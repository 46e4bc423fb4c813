"""`collect` with a login the server refuses stops at once and writes nothing; a server it cannot reach is
polled on, each failure recorded, as before."""

from testing.collect import polls, records, start_collect
from testing.mariadb import free_port

DENIED = "access denied for user 'steady'"


def test_it_stops_at_a_wrong_password_and_creates_no_file(tmp_path, mariadb):
    path = tmp_path / "denied.ssc"
    proc = start_collect(mariadb.port, path, "--interval", "1", "--duration", "5", password="wrong-pw")
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode != 0, out
    assert DENIED in out and f"nothing collected, {path} not created" in out, out
    assert "wrong-pw" not in out
    assert not path.exists()


def test_it_leaves_a_file_it_would_resume_as_it_was(tmp_path, mariadb):
    path = tmp_path / "resumed.ssc"
    first = start_collect(mariadb.port, path, "--interval", "1", "--duration", "2", module=True)
    out, _ = first.communicate(timeout=60)
    assert first.returncode == 0, out
    before = path.read_bytes()
    second = start_collect(mariadb.port, path, "--interval", "1", "--duration", "5", "--run", "r", module=True,
                           password="wrong-pw")
    out, _ = second.communicate(timeout=60)
    assert second.returncode == 2 and DENIED in out and f"{path} left as it was" in out, out
    assert path.read_bytes() == before


def test_a_server_it_cannot_reach_is_polled_on_and_each_failure_recorded(tmp_path):
    """Nothing listens on the port: no login was refused, so it goes on polling after the first failure and
    keeps every poll (a slot is skipped only when the machine is too slow to make it)."""
    path = tmp_path / "down.ssc"
    proc = start_collect(free_port(), path, "--interval", "1", "--duration", "3")
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 0, out
    kept = polls(path)
    # Polls due at 0, 1, 2 and 3 s: more than the first, each failed with the cannot-connect error.
    assert 2 <= len(kept) <= 4 and all("cannot connect" in p["connect_error"] for p in kept), out
    assert records(path)[-1]["type"] == "end"
