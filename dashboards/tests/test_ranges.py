"""Time ranges from the query string, and the fleet's server states."""

from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

from django.http import QueryDict

from dashboards.analysis.fleet_state import DISABLED, DOWN, NEVER, STALE, UP, server_state
from dashboards.timerange import MAX_POINTS, from_query, max_points, read_range

NOW = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)


def test_presets_are_live_and_fixed_ranges_are_not():
    tr = from_query(QueryDict("range=6h"), NOW)
    assert (tr.start, tr.end, tr.live, tr.params()) == (NOW - timedelta(hours=6), NOW, True, {"range": "6h"})
    tr = from_query(QueryDict("from=2026-01-05 10:00:00.123&to=2026-01-05T11:00:00Z"), NOW)
    assert (tr.start, tr.end, tr.live) == (datetime(2026, 1, 5, 10, 0, 0, 123000, tzinfo=UTC),
                                           datetime(2026, 1, 5, 11, tzinfo=UTC), False)
    assert tr.params() == {"from": "2026-01-05T10:00:00", "to": "2026-01-05T11:00:00"}


def test_bad_ranges_are_said_never_silently_replaced():
    tr, problem = read_range(QueryDict("from=2026-01-05T11:00&to=2026-01-05T10:00"), NOW)
    assert (tr.start.hour, tr.end.hour) == (10, 11) and "swapped" in problem  # what the user meant
    tr, problem = read_range(QueryDict("range=99y"), NOW)
    assert tr.preset == "1h" and "range='99y' is not one of 15m, 1h" in problem and "last 1h" in problem
    tr, problem = read_range(QueryDict("from=garbage&to=2026-01-05T10:00"), NOW)
    assert tr.preset == "1h" and "from='garbage' is not a time" in problem
    assert "is not a time" in read_range(QueryDict("from=inf"), NOW)[1]
    assert "is not a time" in read_range(QueryDict("from=2026-02-30T10:00&to=2026-03-01T10:00"), NOW)[1]
    tr, problem = read_range(QueryDict("from=0001-01-01T00:00&to=9999-12-31T23:59"), NOW)
    assert (tr.start, tr.end) == (NOW - timedelta(days=800), NOW + timedelta(days=1)) and "cut to" in problem
    assert read_range(QueryDict("range=6h"), NOW)[1] is None


def test_a_range_with_one_end_or_wholly_outside_the_data_says_what_it_shows():
    tr, problem = read_range(QueryDict("to=2026-01-04T09:00&range=6h"), NOW)  # to alone: 6 hours ending there
    assert (tr.start, tr.end, problem) == (datetime(2026, 1, 4, 3, tzinfo=UTC), datetime(2026, 1, 4, 9, tzinfo=UTC),
                                           None)
    tr, problem = read_range(QueryDict("to=2026-01-04T09:00"), NOW)  # the default preset's hour
    assert (tr.start, tr.end) == (datetime(2026, 1, 4, 8, tzinfo=UTC), datetime(2026, 1, 4, 9, tzinfo=UTC))
    tr, problem = read_range(QueryDict("from=2026-01-07T00:00"), NOW)  # from alone, after tomorrow, no to
    assert tr.preset == "1h" and "from='2026-01-07T00:00' is in the future and no 'to' is given" in problem
    assert "'from' is not before 'to'" not in problem
    tr, problem = read_range(QueryDict("from=2020-01-01&to=2020-01-02"), NOW)  # wholly before the oldest data
    assert tr.preset == "1h"
    assert problem == ("The range 2020-01-01T00:00:00 → 2020-01-02T00:00:00 is older than 800 days (no data is kept"
                       " that long): nothing to show there, showing the last 1h (UTC) instead.")
    tr, problem = read_range(QueryDict("to=0001-01-01T00:00"), NOW)  # no overflow computing its start
    assert tr.preset == "1h" and "older than 800 days" in problem


def test_points_follow_the_chart_width_within_bounds():
    assert max_points(QueryDict("w=800")) == 800
    assert max_points(QueryDict("w=100000")) == MAX_POINTS
    assert max_points(QueryDict("w=x")) == 1200


def _server(**kw):
    return SimpleNamespace(**{"name": "local", "enabled": True, "poll_interval": 10, **kw})


def _health(**kw):
    base = {"last_poll_at": NOW, "last_success_at": NOW, "consecutive_failures": 0, "last_error": "", "sources": {}}
    return SimpleNamespace(**{**base, **kw})


def test_server_states_say_why():
    assert server_state(_server(), None, NOW).name == NEVER
    assert server_state(_server(enabled=False), None, NOW).name == DISABLED
    down = server_state(_server(), _health(consecutive_failures=3, last_error="Can't connect to 10.0.0.5:3306"), NOW)
    assert down.name == DOWN and "3 failed polls" in down.why and "10.0.0.5" in down.why
    stale = server_state(_server(), _health(last_success_at=NOW - timedelta(minutes=5)), NOW)
    assert stale.name == STALE and "5 min ago" in stale.why
    failing = {"pfs_waits": {"ok": False, "error": "performance_schema is OFF"}}
    up = server_state(_server(), _health(sources=failing), NOW)
    assert up.name == UP and "pfs_waits: performance_schema is OFF" in up.why


def test_a_source_the_server_does_not_have_is_no_failure_on_the_fleet():
    sources = {
        "redo_log": {"status": "unsupported", "ok": False,
                     "error": "local: redo_log: not available on MariaDB 10.11.19"},
        "innodb_metrics": {"ok": False, "error": "local: innodb_metrics: missing privilege (PROCESS)"},
        "global_status": {"ok": True, "error": ""},
    }
    up = server_state(_server(), _health(sources=sources), NOW)
    assert up.name == UP and up.why == "local: innodb_metrics: missing privilege (PROCESS)"  # the source named once
