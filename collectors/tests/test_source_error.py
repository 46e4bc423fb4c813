"""A source's stored error, worded once for every page: the fleet, the host page, the run report and compare."""

from collectors.status import NO_WORDS, source_error

OFF = {"status": "off", "ok": False, "error": "db1: pfs_waits: performance_schema is OFF: set it ON"}


def test_it_says_the_polls_words_with_the_server_and_source_named_once():
    assert source_error("db1", "pfs_waits", OFF) == "db1: pfs_waits: performance_schema is OFF: set it ON"
    assert source_error("db1", "pfs_waits", OFF, named=False) == "performance_schema is OFF: set it ON"


def test_a_failure_stored_without_words_says_it_failed():
    state = {"status": "failed", "ok": False, "error": ""}
    assert source_error("db1", "node_exporter", state) == f"db1: node_exporter: {NO_WORDS}"
    assert source_error("db1", "node_exporter", state, named=False) == "failed in its latest poll"


def test_a_source_that_ran_or_never_ran_says_nothing():
    assert source_error("db1", "pfs_waits", {"status": "ok", "ok": True, "error": ""}) == ""
    assert source_error("db1", "pfs_waits", None) == ""
