"""/export.csv and manage.py export_csv: the CSV of a range is what the store holds."""

import csv
import io
from datetime import datetime, timedelta

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
                       f"db1 wait.time_ps:{data.TRX_SYS} (ps/s)"]
    deltas = store_points(db1.pk, "tps", "delta")
    assert len(deltas) == POLLS - 1  # the first poll has no delta
    rates = by_time(rows, "db1 tps (/s)")
    assert rates.keys() == deltas.keys()
    for ts, delta in deltas.items():
        assert float(rates[ts]) == pytest.approx(delta / 10.0, rel=1e-12)
        i = round((ts - START).total_seconds() / 10)
        assert delta == data.tps_delta(i)  # and the store holds what was written
    waits = by_time(rows, f"db1 wait.time_ps:{data.TRX_SYS} (ps/s)")
    for ts, delta in store_points(db1.pk, f"wait.time_ps:{data.TRX_SYS}", "delta").items():
        assert float(waits[ts]) == pytest.approx(delta / 10.0, rel=1e-12)
    threads = by_time(rows, "db1 Threads_running (threads)")
    assert len(threads) == POLLS
    assert {ts: float(v) for ts, v in threads.items()} == store_points(db1.pk, "Threads_running", "rate")
    assert rows[1][0] == START.strftime("%Y-%m-%dT%H:00:00Z")  # ISO 8601, UTC, Z


def test_it_writes_deltas_as_the_store_holds_them(client, db1):
    rows = get_csv(client, **range_params(str(db1.pk), "tps,wait.time_ps:*", full=1, mode="delta"))
    assert "db1 tps (per interval)" in rows[0]
    assert f"db1 wait.time_ps:{data.LOG_SYS_MUTEX} (ps per interval)" in rows[0]
    for metric in ["tps", f"wait.time_ps:{data.TRX_SYS}", f"wait.time_ps:{data.DATA_IO}"]:
        unit = "ps per interval" if "time_ps" in metric else "per interval"
        got = {ts: int(v) for ts, v in by_time(rows, f"db1 {metric} ({unit})").items()}
        assert got == store_points(db1.pk, metric, "delta")


def test_it_loses_and_repeats_no_row_at_chunk_boundaries(client, db1, monkeypatch):
    whole = get_csv(client, **range_params("db1", "tps,history_list_length", full=1))
    monkeypatch.setattr(export_series, "CHUNK_POINTS", 7)  # 18 store queries instead of one
    monkeypatch.setattr(export_series, "MIN_CHUNK_ROWS", 1)
    chunked = get_csv(client, **range_params("db1", "tps,history_list_length", full=1))
    assert chunked == whole
    assert len(whole) == 1 + POLLS
    times = [r[0] for r in whole[1:]]
    assert times == sorted(set(times))


def test_it_downsamples_to_the_step_asked(client, db1):
    rows = get_csv(client, **range_params("db1", "tps", step=120))
    span = (END - START).total_seconds()
    assert 2 <= len(rows) - 1 <= 2 * (span / 120 + 1)  # min/max-preserving: up to two points a step
    raw = store_points(db1.pk, "tps", "rate").values()
    assert all(min(raw) <= float(r[1]) <= max(raw) for r in rows[1:])
    low = min(raw)  # the dips survive downsampling
    assert min(float(r[1]) for r in rows[1:]) == pytest.approx(low)


def test_it_puts_several_servers_side_by_side(client, db1):
    other = data.make_server("db2")
    write_samples(data.global_status(other.pk, START + timedelta(seconds=5), 20, base=900))
    rows = get_csv(client, **range_params("db1,db2", "tps", full=1))
    assert rows[0] == ["time (UTC)", "db1 tps (/s)", "db2 tps (/s)"]
    db2 = by_time(rows, "db2 tps (/s)")
    assert len(db2) == 19
    assert all(r[1] == "" for r in rows[1:] if datetime.fromisoformat(r[0]) in db2)  # other polls' times


def test_it_neutralises_and_round_trips_odd_server_names(client, admin_user):
    client.force_login(admin_user)
    name = '=cmd|"/c calc",évé\n☃'
    odd = data.make_server(name)
    write_samples(data.global_status(odd.pk, START, 5))
    rows = get_csv(client, **range_params(str(odd.pk), "tps", full=1))
    assert rows[0][1] == "'" + name + " tps (/s)"
    assert len(rows) == 1 + 4
    assert [float(r[1]) for r in rows[1:]] == [data.tps_delta(i) / 10 for i in range(1, 5)]
    assert get_csv(client, **range_params(name, "tps", full=1)) == rows  # the whole name, commas and all


@pytest.mark.parametrize("params, message", [
    ({"metrics": "tps"}, "server is missing"),
    ({"server": "nope", "metrics": "tps"}, "server 'nope' is unknown"),
    ({"server": "db1"}, "metrics is missing"),
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


def test_a_charts_csv_is_the_charts_points(client, db1):
    """The dashboards link with the chart's width (w) or step: same query, same points."""
    metrics = ["tps", f"wait.time_ps:{data.TRX_SYS}", "history_list_length"]
    for params in ({"w": 40}, {"step": 30}):
        rows = get_csv(client, **range_params("db1", ",".join(metrics), **params))
        points = 40  # w=40, or 1200 s / step 30 s
        for s in query.series([db1.pk], metrics, START, END, max_points=points):
            unit = {"tps": "/s", "history_list_length": "undo log units"}.get(s.metric, "ps/s")
            got = by_time(rows, f"db1 {s.metric} ({unit})")
            assert len(s.ts) <= points < POLLS
            assert {ts: float(v) for ts, v in got.items()} == pytest.approx(dict(zip(s.ts, s.values, strict=True)))


def test_a_run_stands_for_its_server_and_range(client, db1, capsys):
    from monitor.models import Run

    run = Run.objects.create(name="r1", server=db1, started_at=START, ended_at=START + timedelta(minutes=5))
    rows = get_csv(client, run=run.pk, metrics="tps", full=1)
    assert rows[0] == ["time (UTC)", "db1 tps (/s)"]
    assert len(rows) == 1 + 30  # polls 1..30: the first has no delta
    call_command("export_csv", "--run", str(run.pk), "--metrics", "tps")  # to stdout
    assert list(csv.reader(io.StringIO(capsys.readouterr().out, newline=""))) == rows


def test_the_command_says_what_to_fix(db1):
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="tsp: no such metric collected on db1"):
        call_command("export_csv", "--server", "db1", "--metrics", "tsp", "--from", iso_utc(START))
    with pytest.raises(CommandError, match="server 'db9' is unknown"):
        call_command("export_csv", "--server", "db9", "--metrics", "tps", "--from", iso_utc(START))
