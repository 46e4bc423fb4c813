"""/export.csv and manage.py export_csv: the CSV of a range is what the store holds."""

import csv
import io
from datetime import UTC, datetime, timedelta

import pytest
from django.core.management import call_command

from dashboards.export import series as export_series
from dashboards.export.csv_safe import iso_utc
from dashboards.models import ApiToken
from store import query
from store.ingest import write_samples
from testing import dashboards as data

pytestmark = pytest.mark.django_db
POLLS = 121  # 20 minutes at 10 s
START, END = data.RECENT_T0, data.RECENT_T0 + timedelta(seconds=10 * (POLLS - 1))


def get_csv(client, **params) -> list[list[str]]:
    response = client.get("/export.csv", params)
    assert response.status_code == 200, response.content
    assert response.streaming
    assert response["Content-Type"].startswith("text/csv")
    text = b"".join(response.streaming_content).decode()
    return list(csv.reader(io.StringIO(text, newline="")))


def range_params(server, metrics, **extra) -> dict:
    return {"server": server, "metrics": metrics, "from": iso_utc(START), "to": iso_utc(END), **extra}


def store_points(server_id: int, metric: str, mode: str) -> dict[datetime, float]:
    (series,) = query.series([server_id], [metric], START, END, max_points=100_000, mode=mode)
    return {t: v for t, v in zip(series.ts, series.values, strict=True) if v is not None}


def by_time(rows: list[list[str]], column: str) -> dict[datetime, str]:
    col = rows[0].index(column)
    return {datetime.fromisoformat(r[0]): r[col] for r in rows[1:] if r[col] != ""}


@pytest.fixture
def db1(admin_user, client):
    client.force_login(admin_user)
    server = data.make_server("db1")
    data.write_run_data(server.pk, START, POLLS)
    return server


def test_it_writes_rates_equal_to_deltas_over_the_interval(client, db1):
    rows = get_csv(client, **range_params("db1", f"tps,Threads_running,wait.time_ps:{data.TRX_SYS}", full=1))
    assert rows[0] == ["time (UTC)", "db1 tps (/s)", "db1 Threads_running (threads)",
                       f"db1 wait.time_ps:{data.TRX_SYS} (s/s)"]  # seconds waited per second, as charted
    deltas = store_points(db1.pk, "tps", "delta")
    assert len(deltas) == POLLS - 1  # the first poll has no delta
    rates = by_time(rows, "db1 tps (/s)")
    assert rates.keys() == deltas.keys()
    for ts, delta in deltas.items():
        assert float(rates[ts]) == pytest.approx(delta / 10.0, rel=1e-6)
        i = round((ts - START).total_seconds() / 10)
        assert delta == data.tps_delta(i)  # and the store holds what was written
    waits = by_time(rows, f"db1 wait.time_ps:{data.TRX_SYS} (s/s)")
    for ts, delta in store_points(db1.pk, f"wait.time_ps:{data.TRX_SYS}", "delta").items():
        assert float(waits[ts]) == pytest.approx(delta / 10.0 / 1e12, rel=1e-5)
        assert len(waits[ts].split(".")[-1]) <= 6  # sensible precision, not 15-digit floats
    threads = by_time(rows, "db1 Threads_running (threads)")
    assert len(threads) == POLLS
    assert {ts: float(v) for ts, v in threads.items()} == store_points(db1.pk, "Threads_running", "rate")
    assert rows[1][0] == START.strftime("%Y-%m-%dT%H:00:00Z")  # ISO 8601, UTC, Z


def test_it_writes_deltas_as_the_store_holds_them(client, db1):
    rows = get_csv(client, **range_params(str(db1.pk), "tps,wait.time_ps:*", full=1, mode="delta"))
    assert "db1 tps (per interval)" in rows[0]
    assert f"db1 wait.time_ps:{data.LOG_SYS_MUTEX} (s per interval)" in rows[0]
    got = {ts: int(v) for ts, v in by_time(rows, "db1 tps (per interval)").items()}
    assert got == store_points(db1.pk, "tps", "delta")
    for metric in [f"wait.time_ps:{data.TRX_SYS}", f"wait.time_ps:{data.DATA_IO}"]:
        got = {ts: float(v) for ts, v in by_time(rows, f"db1 {metric} (s per interval)").items()}
        assert got == pytest.approx({t: v / 1e12 for t, v in store_points(db1.pk, metric, "delta").items()}, rel=1e-5)


def test_it_loses_and_repeats_no_row_at_chunk_boundaries(client, db1, monkeypatch):
    whole = get_csv(client, **range_params("db1", "tps,history_list_length", full=1))
    monkeypatch.setattr(export_series, "CHUNK_POINTS", 7)  # 18 store queries instead of one
    monkeypatch.setattr(export_series, "MIN_CHUNK_ROWS", 1)
    chunked = get_csv(client, **range_params("db1", "tps,history_list_length", full=1))
    assert chunked == whole
    assert len(whole) == 1 + POLLS
    times = [r[0] for r in whole[1:]]
    assert times == sorted(set(times))


def test_a_step_gives_rows_on_the_step_with_each_buckets_figures(client, db1):
    rows = get_csv(client, **range_params("db1", "tps,Threads_running", step=120, minmax=1))
    assert rows[0] == ["time (UTC)", "db1 tps (/s)", "db1 tps (/s) min", "db1 tps (/s) max",
                       "db1 Threads_running (threads)", "db1 Threads_running (threads) min",
                       "db1 Threads_running (threads) max"]
    times = [datetime.fromisoformat(r[0]) for r in rows[1:]]
    # Aligned to the step, evenly; the row at END would hold only the poll at END (1 of 12): left out.
    assert times == [START + timedelta(seconds=120 * k) for k in range(10)]
    for k, row in enumerate(rows[1:]):
        # By hand: the polls at 120k .. 120k + 110 s, each delta over 10 s; the first poll (i = 0) has no delta.
        polls = [i for i in range(12 * k, 12 * k + 12) if 0 < i < POLLS]
        deltas = [data.tps_delta(i) for i in polls]
        assert float(row[1]) == pytest.approx(sum(deltas) / (10 * len(polls)), rel=1e-6), k
        assert (float(row[2]), float(row[3])) == (min(deltas) / 10, max(deltas) / 10)
        threads = [8 + i % 5 for i in range(12 * k, 12 * k + 12)]
        assert float(row[4]) == pytest.approx(sum(threads) / len(threads), rel=1e-5)


def test_the_command_writes_rows_on_the_step(db1, tmp_path):
    out = tmp_path / "step.csv"
    call_command("export_csv", "--server", "db1", "--metrics", "tps", "--from", iso_utc(START),
                 "--to", iso_utc(END), "--step", "30", "-o", str(out))
    with out.open(newline="") as f:
        rows = list(csv.reader(f))
    assert [datetime.fromisoformat(r[0]) for r in rows[1:]] == [START + timedelta(seconds=30 * k) for k in range(40)]
    deltas = [data.tps_delta(i) for i in (3, 4, 5)]
    assert float(rows[2][1]) == pytest.approx(sum(deltas) / 30, rel=1e-6)  # the row's count over its 30 s


def test_it_puts_several_servers_side_by_side(client, db1):
    other = data.make_server("db2")
    write_samples(data.global_status(other.pk, START + timedelta(seconds=5), 20, base=900))
    rows = get_csv(client, **range_params("db1,db2", "tps", full=1))
    assert rows[0] == ["time (UTC)", "db1 tps (/s)", "db2 tps (/s)"]
    db2 = by_time(rows, "db2 tps (/s)")
    assert len(db2) == 19 and len(rows) == POLLS  # one grid from the first TPS (poll 1): no rows for db2's own
    assert all(r[1] != "" for r in rows[1:] if datetime.fromisoformat(r[0]) in db2)  # side by side


def test_it_neutralises_and_round_trips_odd_server_names(client, admin_user):
    client.force_login(admin_user)
    name = '=cmd|"/c calc",évé\n☃'
    odd = data.make_server(name)
    write_samples(data.global_status(odd.pk, START, 5))
    rows = get_csv(client, **range_params(str(odd.pk), "tps", full=1))
    assert rows[0][1] == "'" + name + " tps (/s)"
    assert len(rows) == POLLS  # the range from the first TPS on, on the poll grid: empty after the five polls
    assert [float(r[1]) for r in rows[1:] if r[1]] == [data.tps_delta(i) / 10 for i in range(1, 5)]
    assert get_csv(client, **range_params(name, "tps", full=1)) == rows  # the whole name, commas and all


@pytest.mark.parametrize("params, message", [
    ({"metrics": "tps"}, "server is missing"),
    ({"server": "nope", "metrics": "tps"}, "server 'nope' is unknown"),
    ({"server": "db1"}, "metrics is missing"),
    ({"server": "db1", "metrics": "tps,a\x00b"}, "metrics='tps,a\\x00b' holds a NUL byte"),
    ({"server": "db1", "metrics": "tps", "mode": "avg"}, "mode='avg'"),
    ({"server": "db1", "metrics": "tps", "from": "yesterday"}, "is not an ISO 8601 time"),
    ({"server": "db1", "metrics": "tps", "step": "-5"}, "step must be a positive"),
    ({"server": "db1", "metrics": "tps,tsp,mutex.spins:*"}, "tsp, mutex.spins:*: no such metric collected on db1"),
])
def test_it_says_what_to_fix(client, db1, params, message):
    base = {"from": iso_utc(START), "to": iso_utc(END)}
    response = client.get("/export.csv", {**base, **params})
    assert response.status_code == 400
    assert message in response.content.decode()


def test_a_from_after_now_without_a_to_says_that_to_is_now(client, db1):
    response = client.get("/export.csv", {"server": "db1", "metrics": "tps", "from": "2099-01-01T00:00:00Z"})
    assert response.status_code == 400
    assert response.content.decode() == (
        "CSV export: from='2099-01-01T00:00:00Z' is not before now, where to ends when not given: give a to after "
        "it, or an earlier from\n")


def test_a_range_wholly_after_now_is_refused_not_answered_empty(client, db1):
    params = {"server": "db1", "metrics": "tps", "from": "2101-01-01T00:00:00Z", "to": "2101-01-02T00:00:00Z"}
    response = client.get("/export.csv", params)
    assert response.status_code == 400
    assert response.content.decode() == (
        "CSV export: from='2101-01-01T00:00:00Z' is not before now: no data exists from there on yet; "
        "give an earlier from\n")


def test_it_needs_a_login(client, db1):
    client.logout()
    response = client.get("/export.csv", range_params("db1", "tps"))
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_a_script_downloads_with_an_api_token(client, db1, admin_user):
    client.logout()
    _token, raw = ApiToken.issue(admin_user, "nightly CSV")
    params = range_params("db1", "tps", full=1)
    response = client.get("/export.csv", params, headers={"Authorization": f"Bearer {raw}"})
    assert response.status_code == 200
    assert len(list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))) == POLLS
    wrong = client.get("/export.csv", params, headers={"Authorization": "Bearer sst_wrong"})
    assert wrong.status_code == 401 and "invalid API token" in wrong.content.decode()


def test_the_command_writes_the_same_csv(client, db1, tmp_path):
    web = get_csv(client, **range_params("db1", "tps,wait.count:*", full=1))
    out = tmp_path / "run.csv"
    call_command("export_csv", "--server", "db1", "--metrics", "tps,wait.count:*",
                 "--from", iso_utc(START), "--to", iso_utc(END), "-o", str(out))
    with out.open(newline="") as f:
        assert list(csv.reader(f)) == web


def test_a_charts_csv_is_on_a_round_step_near_its_bins(client, db1):
    """The dashboards link with the chart's width (w): 1200 s over 40 points is a 30 s step."""
    assert get_csv(client, **range_params("db1", "tps", w=40)) == get_csv(client, **range_params("db1", "tps", step=30))
    rows = get_csv(client, **range_params("db1", "tps", w=400))  # 3 s bins: finer than the polls
    assert rows == get_csv(client, **range_params("db1", "tps", full=1))


def test_a_run_stands_for_its_server_and_range(client, db1, capsys):
    from servers.models import Run

    run = Run.objects.create(name="r1", server=db1, started_at=START, ended_at=START + timedelta(minutes=5))
    rows = get_csv(client, run=run.pk, metrics="tps", full=1)
    assert rows[0] == ["time (UTC)", "db1 tps (/s)"]
    assert len(rows) == 1 + 30  # polls 1..30: the first has no delta
    call_command("export_csv", "--run", str(run.pk), "--metrics", "tps")  # to stdout
    assert list(csv.reader(io.StringIO(capsys.readouterr().out, newline=""))) == rows


def test_a_run_between_two_polls_exports_its_own_polls_only(client, db1):
    """A run from 5 s after a poll: the poll after its start began before it, and is not the run's (as the report
    counts); its last poll, 5 s before its end, is."""
    from servers.models import Run

    run = Run.objects.create(name="r2", server=db1, started_at=START + timedelta(seconds=5),
                             ended_at=START + timedelta(seconds=305))
    rows = get_csv(client, run=run.pk, metrics="tps", full=1)
    polls = [datetime.fromisoformat(r[0].removesuffix("Z")).replace(tzinfo=UTC) for r in rows[1:]]
    # Polls every 10 s from START: those whose 10 s lie inside the run are START + 20 s .. START + 300 s.
    assert polls[0] == START + timedelta(seconds=20) and polls[-1] == START + timedelta(seconds=300)
    assert len(polls) == 29


def test_a_run_exports_every_source_of_its_last_poll(client, admin_user):
    """The waits of each poll are read 7 ms after its status: the run's last round, both read inside the run
    (it ends 5 s later), is the run's for both sources, as its figures count it."""
    from servers.models import Run

    client.force_login(admin_user)
    server = data.make_server("db4")
    write_samples(data.global_status(server.pk, START, 40))
    write_samples(data.pfs_waits(server.pk, START + timedelta(milliseconds=7), 40))
    run = Run.objects.create(name="r4", server=server, started_at=START, ended_at=START + timedelta(seconds=305))
    rows = get_csv(client, run=run.pk, metrics=f"tps,wait.time_ps:{data.TRX_SYS}", full=1, mode="delta")
    # Rounds at 10 .. 300 s lie inside the run: 30 rows, each with its status delta and its waits delta.
    assert [r[0] for r in rows[1:]] == [iso_utc(START + timedelta(seconds=10 * i)) for i in range(1, 31)]
    assert rows[-1][2] == "4.03"  # the 30th waits poll's delta, 4e12 + 30e9 ps, read at 300.007 s


def test_the_command_says_what_to_fix(db1):
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="tsp: no such metric collected on db1"):
        call_command("export_csv", "--server", "db1", "--metrics", "tsp", "--from", iso_utc(START))
    with pytest.raises(CommandError, match="server 'db9' is unknown"):
        call_command("export_csv", "--server", "db9", "--metrics", "tps", "--from", iso_utc(START))


def test_sources_polled_milliseconds_apart_share_a_row_and_an_outage_is_empty_cells(client, admin_user):
    client.force_login(admin_user)
    server = data.make_server("db3")
    late = START + timedelta(milliseconds=7)  # the waits of each poll are read 7 ms after the status
    kept = [i for i in range(POLLS) if not 30 <= i < 60]  # no poll for 5 minutes
    write_samples(s for s in data.global_status(server.pk, START, POLLS) if round((s.ts - START).seconds / 10) in kept)
    write_samples(s for s in data.pfs_waits(server.pk, late, POLLS) if round((s.ts - late).seconds / 10) in kept)
    after_last = iso_utc(END + timedelta(seconds=1))
    rows = get_csv(client, **range_params("db3", f"tps,wait.time_ps:{data.TRX_SYS}", to=after_last))
    assert len(rows) == POLLS and all(r[0].endswith("0Z") for r in rows[1:])  # poll 1 .. 120, on the 10 s grid
    filled = [(r[1] != "", r[2] != "") for r in rows[1:]]
    assert filled == [(i not in range(30, 60), i not in range(30, 60)) for i in range(1, POLLS)]


def test_no_row_past_the_end_of_the_range(client, db1):
    """Polls every 10 s; a range ending 3 s before a poll has its last row at the poll before, not an
    empty row labelled by the poll after the range."""
    end = START + timedelta(seconds=57)
    rows = get_csv(client, server="db1", metrics="tps", **{"from": iso_utc(START), "to": iso_utc(end)})
    times = [datetime.fromisoformat(r[0]) for r in rows[1:]]
    assert times == [START + timedelta(seconds=10 * i) for i in range(1, 6)]  # 10 .. 50 s (0 s has no delta)
    assert all(r[1] != "" for r in rows[1:])


def test_rows_stop_at_now_when_to_is_in_the_future(admin_client):
    """to= an hour ahead gave 360 empty rows labelled after now. 30 polls 10 s apart, the newest 5 s ago:
    by poll the last row is the newest poll's (at most 30 rows); by step=60 at most the 6 minutes the polls span;
    nothing labelled after now either way."""
    server = data.make_server("ahead")
    newest = datetime.now(UTC).replace(microsecond=0) - timedelta(seconds=5)
    first = newest - timedelta(seconds=290)
    data.write_run_data(server.pk, first, 30)
    ahead = {"server": "ahead", "metrics": "tps", "from": iso_utc(first - timedelta(seconds=1)),
             "to": iso_utc(newest + timedelta(hours=1))}
    rows = get_csv(admin_client, **ahead)
    labels = [datetime.fromisoformat(r[0]) for r in rows[1:]]
    # The rows sit on the 10 s grid of the polls: the newest poll's row is within 10 s of it, with its value.
    assert newest - timedelta(seconds=10) < labels[-1] <= datetime.now(UTC) and rows[-1][1] != ""
    assert len(labels) <= 30
    minutes = [datetime.fromisoformat(r[0]) for r in get_csv(admin_client, **ahead, step="60")[1:]]
    assert minutes[-1] <= datetime.now(UTC) and len(minutes) <= 6
