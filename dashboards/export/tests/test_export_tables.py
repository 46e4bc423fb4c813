"""Top waits, run comparison and annotation CSVs: exact sums, ratios, safe text."""

from datetime import UTC, datetime, timedelta

import pytest

from dashboards.export.csv_safe import iso_utc
from dashboards.export.units import column_name
from servers.models import Annotation, Run
from store import query
from testing import dashboards as data
from testing.dashboards import get_csv

pytestmark = pytest.mark.django_db
POLLS = 121
START, MID, END = data.RECENT_T0, data.RECENT_T0 + timedelta(seconds=600), data.RECENT_T0 + timedelta(seconds=1200)
# Per-poll timer deltas of ~1e18 ps: a minute's sum (the store's rollup bucket)
# still fits 64 bits, the 20 minutes' sum does not.
HUGE = 250_000


@pytest.fixture
def db1(admin_user, client):
    client.force_login(admin_user)
    server = data.make_server("db1")
    data.write_run_data(server.pk, START, POLLS, wait_scale=HUGE)
    return server


def test_it_exports_top_waits_with_exact_picosecond_sums(client, db1):
    rows = get_csv(client, "/export/topwaits.csv", server="db1", **{"from": iso_utc(START), "to": iso_utc(END)})
    header, body = rows[0], rows[1:]
    assert header[:3] == ["rank", "event", "time waited (s)"]
    assert [r[1] for r in body] == [data.TRX_SYS, data.LOG_SYS_MUTEX, data.DATA_IO]
    expected = sum(HUGE * (4 * 10**12 + i * 10**9) for i in range(1, POLLS))
    assert expected > 2**63
    assert int(body[0][header.index("time waited (ps)")]) == expected
    assert int(body[0][header.index("count")]) == sum(40_000 + i for i in range(1, POLLS))
    assert sum(float(r[header.index("share of time waited (%)")]) for r in body) == pytest.approx(100)
    assert float(body[0][2]) == pytest.approx(expected / 1e12)


def test_it_exports_two_intervals_and_their_difference(client, db1):
    params = {"server": str(db1.pk), "from": iso_utc(START), "to": iso_utc(MID),
              "from2": iso_utc(MID + timedelta(seconds=1)), "to2": iso_utc(END)}
    rows = get_csv(client, "/export/topwaits.csv", **params)
    header = rows[0]
    first = {r[0]: r for r in rows[1:]}
    a = query.totals(db1.pk, [f"wait.time_ps:{data.LOG_SYS_MUTEX}"], START, MID)[f"wait.time_ps:{data.LOG_SYS_MUTEX}"]
    b = query.totals(db1.pk, [f"wait.time_ps:{data.LOG_SYS_MUTEX}"], MID + timedelta(seconds=1), END)
    b = b[f"wait.time_ps:{data.LOG_SYS_MUTEX}"]
    row = first[data.LOG_SYS_MUTEX]
    assert int(row[header.index("A time waited (ps)")]) == a
    assert int(row[header.index("B time waited (ps)")]) == b
    # Per second of what each interval's polls measured (the intervals need not be as long as each
    # other): A holds the polls at 10..600 s, B those at 610..1200 s (B starts at 601 s, but its first
    # poll measured from 600 s on): 60 polls of 10 s each, not 599 s for B.
    rate_a = a / 1e12 / (60 * 10)
    rate_b = b / 1e12 / (60 * 10)
    assert float(row[header.index("A waited (s per s)")]) == pytest.approx(rate_a)
    assert float(row[header.index("difference B-A (s per s)")]) == pytest.approx(rate_b - rate_a)
    assert float(row[header.index("ratio B/A of the rates")]) == pytest.approx(rate_b / rate_a)


def test_it_exports_the_run_comparison_with_ratios_to_the_first(client, db1):
    other = data.make_server("-db2")  # a leading minus: neutralised, while negative numbers stay numbers
    data.write_run_data(other.pk, START, POLLS, base=2500)
    first = Run.objects.create(name="baseline", server=db1, started_at=START, ended_at=END)
    second = Run.objects.create(name="=half load", server=other, started_at=START, ended_at=END)
    rows = get_csv(client, "/export/compare.csv", runs=f"{first.pk},{second.pk}")
    header, a, b = rows
    col = header.index
    assert a[col("run")] == "baseline" and b[col("run")] == "'=half load" and b[col("server")] == "'-db2"
    rates = [data.tps_delta(i) / 10 for i in range(1, POLLS)]
    assert float(a[col("avg TPS (/s)")]) == pytest.approx(sum(rates) / len(rates))
    assert float(a[col("TPS ratio to first")]) == 1.0
    slower = [data.tps_delta(i, 2500) / 10 for i in range(1, POLLS)]
    assert float(b[col("TPS ratio to first")]) == pytest.approx(sum(slower) / sum(rates))
    assert int(a[col("transactions")]) == sum(data.tps_delta(i) for i in range(1, POLLS))
    assert float(a[col("max history list length")]) == 1000 + 40 * (POLLS - 1)
    assert a[col("from (UTC, after the warm-up)")] == iso_utc(START)


def test_it_neutralises_annotation_text_and_keeps_it_whole(client, db1):
    texts = ['=HYPERLINK("http://evil","x")', '-5% after "flush", then\nrestart', "@admin ☃", "plain"]
    for n, text in enumerate(texts):
        Annotation.objects.create(server=db1, at=START + timedelta(seconds=n), text=text)
    Annotation.objects.create(at=START + timedelta(seconds=9), text="+all servers")
    rows = get_csv(client, "/export/annotations.csv", server="db1",
                   **{"from": iso_utc(START), "to": iso_utc(END)})
    assert rows[0] == ["time (UTC)", "server", "run", "text"]
    assert [r[3] for r in rows[1:]] == ["'" + texts[0], "'" + texts[1], "'" + texts[2], "plain", "'+all servers"]
    assert [r[1] for r in rows[1:]] == ["db1"] * 4 + [""]


def test_it_says_which_run_is_unknown(client, db1):
    response = client.get("/export/compare.csv", {"runs": "999"})
    assert response.status_code == 400
    assert "run 999 is unknown" in response.content.decode()


def test_the_fleet_and_runs_tables_have_their_csv(client, db1):
    from collectors.models import ServerHealth

    down = data.make_server("z-down")
    ServerHealth.objects.create(server=down, last_poll_at=END, consecutive_failures=4, last_error="refused")
    body = client.get("/").content.decode()
    assert 'href="/export/fleet.csv?"' in body
    assert body.index("z-down") < body.index("<strong>db1</strong>")  # problems first, then by name
    rows = get_csv(client, "/export/fleet.csv")
    assert rows[0][:3] == ["server", "address", "state"] and [r[0] for r in rows[1:]] == ["z-down", "db1"]
    assert rows[1][2] == "down" and "refused" in rows[1][3]
    Run.objects.create(name="=HYPERLINK(x)", server=db1, started_at=START, ended_at=END, warmup_seconds=30)
    assert "/export/runs.csv" in client.get("/runs/").content.decode()  # the runs table's CSV (issue 17's columns)
    assert "'=HYPERLINK(x)" in [cell for row in get_csv(client, "/export/runs.csv") for cell in row]


def test_gauge_headers_name_their_unit():
    assert column_name("db1", "replica.lag_s:ch1", "gauge") == "db1 replica.lag_s:ch1 (s)"
    assert column_name("db1", "replica.sql_running", "gauge") == "db1 replica.sql_running (1 = running)"
    assert column_name("db1", "Innodb_checkpoint_age", "gauge") == "db1 Innodb_checkpoint_age (bytes)"
    assert column_name("db1", "trx_oldest_age_s", "gauge") == "db1 trx_oldest_age_s (s)"
    assert column_name("db1", "Some_new_gauge", "gauge") == "db1 Some_new_gauge (value)"


def test_buffer_pool_page_gauges_are_in_pages():
    # Status and INNODB_METRICS count the buffer pool in pages; a rate of the counters stays per second.
    assert column_name("db1", "Innodb_buffer_pool_pages_dirty", "gauge") == "db1 Innodb_buffer_pool_pages_dirty (pages)"
    assert column_name("db1", "innodb_metrics:buffer_pool_pages_free", "gauge") == (
        "db1 innodb_metrics:buffer_pool_pages_free (pages)")
    assert column_name("db1", "Innodb_buffer_pool_pages_flushed", "counter") == (
        "db1 Innodb_buffer_pool_pages_flushed (/s)")
    assert column_name("db1", "innodb_metrics:trx_rseg_history_len", "gauge") == (
        "db1 innodb_metrics:trx_rseg_history_len (value)")


def test_runs_and_annotations_write_whole_seconds_as_the_series_and_fleet_do(client, db1):
    # A run and a mark set through the API carry the microseconds of the moment: 12:00:05.750 is written
    # 12:00:05, as the pages say it (%H:%M:%S) and the series export labels its rows.
    at = START + timedelta(seconds=5, microseconds=750_000)
    Run.objects.create(name="api run", server=db1, started_at=at, ended_at=at + timedelta(seconds=60.4))
    Annotation.objects.create(server=db1, at=at, text="flush")
    whole = iso_utc(START + timedelta(seconds=5))
    runs = get_csv(client, "/export/runs.csv")
    assert runs[1][3:5] == [whole, iso_utc(START + timedelta(seconds=66))]  # 5.75 + 60.4 = 66.15 s
    marks = get_csv(client, "/export/annotations.csv", server="db1", **{"from": iso_utc(START), "to": iso_utc(END)})
    assert marks[1][0] == whole


@pytest.mark.parametrize("table", ["topwaits", "holders", "statements"])
def test_a_table_to_a_time_ahead_ends_at_now_as_the_series_does(client, db1, table):
    """Audit 4: to= an hour ahead named the file "..._<an hour ahead>.csv", a range past the newest poll, where
    the series export ends at now. The file now ends at the request's now; its rows are those up to now (the
    polls end two days ago: the same rows as from the start to now)."""
    ahead = datetime.now(UTC).replace(microsecond=0) + timedelta(hours=1)
    before = datetime.now(UTC)
    answer = client.get(f"/export/{table}.csv", {"server": "db1", "from": iso_utc(START), "to": iso_utc(ahead)})
    after = datetime.now(UTC)
    name = answer["Content-Disposition"].split('"')[1]
    ends = datetime.strptime(name.rsplit("_", 1)[1][:19], "%Y-%m-%dT%H-%M-%S").replace(tzinfo=UTC)
    assert before - timedelta(seconds=1) < ends <= after
    body = b"".join(answer.streaming_content).decode()
    till_end = client.get(f"/export/{table}.csv", {"server": "db1", "from": iso_utc(START), "to": iso_utc(END)})
    assert body == b"".join(till_end.streaming_content).decode()
