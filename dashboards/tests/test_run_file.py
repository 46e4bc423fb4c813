"""Moving runs between installations: export, a fresh store, import; the report, compare and scalability
figures computed there equal those computed here. Bad files store nothing; importing twice stores once."""

import gzip
import json
from datetime import timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.db import connection
from django.http import QueryDict

from dashboards import per_trx_reads, reads
from dashboards.analysis.step_window import Window
from dashboards.reports.run_file import RunFileError, export, import_file
from dashboards.reports.scalability import study
from dashboards.reports.summary import summarize_run
from servers.models import Annotation, Run, Server
from testing.dashboards import TEN_MINUTES, TEN_MINUTES_POLLS, ten_minutes, write_run_data
from testing.scalability import BASELINE, write_sweep
from testing.servers import make_server
from testing.statements import write_reads
from testing.store import reset_caches, truncate_tables

pytestmark = pytest.mark.django_db


def report_figures(run: Run) -> tuple:
    """What the run report and the compare page show of a run: its summary and its top waits."""
    s = summarize_run(run)
    waits = per_trx_reads.run_figures(run.server_id, Window(s.start, s.end))[0]
    return (s.start, s.end, s.tps, s.qps, s.transactions, s.max_history, s.covered,
            [(w.event, w.count, w.time_ps) for w in waits])


def statement_figures(runs: list[Run]) -> tuple:
    """What the run report shows of each run's top statements, and the compare page's most changed ones
    (by schema and digest: the digest ids are the installation's own)."""
    top = [[(t.row.schema, t.row.digest, t.row.text, t.row.sums, t.row.max_ps, t.row.intervals, t.share,
             t.time_per_trx, t.execs_per_trx) for t in reads.run_top_statements(run, 10)] for run in runs]
    changed = [(d.row.schema, d.row.digest, d.a_per_trx, d.b_per_trx, d.change)
               for d in reads.statements_changed(runs, 10)]
    return top, changed


def sweep_figures(name: str) -> list:
    found = study(QueryDict(f"sweep={name}"))
    return [(lv.concurrency, lv.tps.avg, lv.waits, lv.cpu) for curve in found.curves for lv in curve.levels]


def fresh_store() -> None:
    """The other installation: no server, no run, no sample of this one."""
    Server.objects.all().delete()
    truncate_tables()
    reset_caches()


def stored_rows() -> int:
    with connection.cursor() as cur:
        cur.execute("SELECT count(*) FROM store_raw")
        return cur.fetchone()[0]


@pytest.fixture
def a_run():
    server = ten_minutes("lab-db")
    start, end = TEN_MINUTES[0] + timedelta(seconds=60), TEN_MINUTES[1] - timedelta(seconds=60)
    run = Run.objects.create(server=server, name="oltp_rw 64", started_at=start, ended_at=end, notes="neighbors=1")
    Annotation.objects.create(server=server, run=run, at=start + timedelta(seconds=100), text="SET GLOBAL x=1")
    return run


def test_an_imported_run_shows_the_same_report_figures(a_run):
    before = report_figures(a_run)
    assert before[4] > 0 and before[7]  # transactions counted, waits ranked: figures worth comparing
    data = export([a_run])
    fresh_store()
    done = import_file(data)
    run = Run.objects.get(name="oltp_rw 64")
    assert done.runs == [run] and run.notes == "neighbors=1" and not run.server.enabled
    assert report_figures(run) == before
    assert Annotation.objects.get(run=run).text == "SET GLOBAL x=1"
    recorded = json.loads(gzip.decompress(data))["servers"][0]["runs"][0]["report"]
    assert recorded["transactions"] == before[4] and recorded["tps"]["p95"] == before[2].p95


def test_an_imported_run_shows_the_same_statements():
    server = ten_minutes("stmt-db")
    t0 = TEN_MINUTES[0]
    write_reads(server.pk, t0, 5)  # reads end every 60 s to t0 + 300 s
    write_reads(server.pk, t0 + timedelta(seconds=300), 5, scale=2)  # then twice the statement time a read
    a = Run.objects.create(server=server, name="a", started_at=t0 + timedelta(seconds=60),
                           ended_at=t0 + timedelta(seconds=300), warmup_seconds=0)
    b = Run.objects.create(server=server, name="b", started_at=t0 + timedelta(seconds=300),
                           ended_at=t0 + timedelta(seconds=600), warmup_seconds=0)
    before = statement_figures([a, b])
    assert all(before[0]) and before[1] and all(change for *_, change in before[1])  # worth comparing
    assert before[0][0][0][3]["execs"] == 4 * 10  # SLEEPY's 10 a read, the 4 reads inside run a
    data = export([a, b])
    fresh_store()
    import_file(data)
    runs = list(Run.objects.filter(server__name="stmt-db").order_by("started_at"))
    assert statement_figures(runs) == before
    import_file(data)  # again: no read stored twice
    assert statement_figures(runs) == before
    recorded = json.loads(gzip.decompress(data))["servers"][0]["runs"][0]["report"]["top_statements"]
    assert recorded[0] == ["app", "d-sleep", 40, 40 * 50 * 10**9]  # 40 statements of 50 ms


def test_an_imported_sweep_shows_the_same_scalability_figures():
    server = Server.objects.create(name="sweeper", host="10.0.0.9", user="u", poll_interval=10)
    write_sweep(server, "flush", "neighbors=1", TEN_MINUTES[0], BASELINE, host=True)
    before = sweep_figures("flush")
    assert len(before) == len(BASELINE) and all(level[1] for level in before)
    data = export(list(Run.objects.filter(sweep="flush")))
    fresh_store()
    import_file(data)
    assert sweep_figures("flush") == before


def test_importing_twice_stores_once(a_run):
    data = export([a_run])
    fresh_store()
    import_file(data)
    rows, runs, notes = stored_rows(), Run.objects.count(), Annotation.objects.count()
    import_file(data)
    assert (stored_rows(), Run.objects.count(), Annotation.objects.count()) == (rows, runs, notes)


def test_a_run_file_is_refused_where_its_server_has_polls_of_its_own(a_run):
    """Imported into an installation that polls the same server itself (same name and address), the file's
    samples were kept beside its own polls: every counter of the run counted twice."""
    data = export([a_run])
    fresh_store()
    here = make_server("lab-db", poll_interval=10)  # the same address as the exported one (testing.servers)
    write_run_data(here.pk, TEN_MINUTES[0] + timedelta(seconds=5), TEN_MINUTES_POLLS)  # polled here, 5 s apart
    rows = stored_rows()
    with pytest.raises(RunFileError, match="'lab-db' holds polls of its own from .* UTC on"):
        import_file(data)
    assert (stored_rows(), Run.objects.count()) == (rows, 0)


def with_statements(data: bytes, statements: dict) -> bytes:
    """The run file with its server's statement digests replaced."""
    document = json.loads(gzip.decompress(data))
    document["servers"][0]["statements"] = statements
    return gzip.compress(json.dumps(document).encode())


@pytest.mark.parametrize("damage, words", [
    (lambda d: d[: len(d) // 2], "truncated"),
    (lambda d: d[:20] + bytes(b ^ 0xFF for b in d[20:40]) + d[40:], "damaged"),
    (lambda d: gzip.compress(json.dumps({**json.loads(gzip.decompress(d)), "version": 2}).encode()), "version 2"),
    (lambda d: with_statements(d, {"texts": [["s", "d", "t", ""]], "reads": [["2026-01-05T00:00:00+00:00", 60000,
                                                                            [[5, *[0] * 14]]]]}), "damaged"),
    (lambda d: with_statements(d, {"texts": [["s", "d", "t", ""]], "reads": [["2026-01-05T00:00:00+00:00", 60000,
                                                                            [[0, 2**70, *[0] * 13]]]]}), "damaged"),
    (lambda d: changed(d, "runs", "started_at", "2100-06-01T00:00:00+00:00"), "1970-01-01 and 2100-01-01"),
    (lambda d: changed(d, "runs", "notes", None), "damaged"),
    (lambda d: changed(d, "runs", "concurrency", float("inf")), "damaged"),
    (lambda d: changed(d, "samples", "interval", 1e30), "interval"),
    (lambda d: changed(d, "samples", "interval", float("inf")), "interval"),
])
def test_a_bad_run_file_stores_nothing(a_run, damage, words):
    data = export([a_run])
    fresh_store()
    with pytest.raises(RunFileError, match=words):
        import_file(damage(data))
    assert not Server.objects.exists() and stored_rows() == 0


def test_the_commands_move_a_run(a_run, tmp_path):
    path = tmp_path / "run.json.gz"
    call_command("export_run", "--run", str(a_run.id), "-o", str(path))
    before = report_figures(a_run)
    fresh_store()
    call_command("import_run", str(path), "--as", "colleague-db")
    run = Run.objects.get(server__name="colleague-db")
    assert report_figures(run) == before


def test_import_run_names_a_file_it_cannot_read(tmp_path):
    with pytest.raises(CommandError) as error:
        call_command("import_run", str(tmp_path))  # a directory: read_bytes() fails
    assert str(error.value) == f"{tmp_path}: cannot read it (Is a directory)"
    assert not Run.objects.exists()


def test_a_run_file_goes_from_a_report_link_to_the_import_page(a_run, client, admin_user):
    client.force_login(admin_user)
    assert f'href="/runs/{a_run.id}/export/"'.encode() in client.get(f"/runs/{a_run.id}/report/").content
    download = client.get(f"/runs/{a_run.id}/export/")
    assert download.status_code == 200 and 'filename="lab-db-oltp_rw-64.run.json.gz"' in download["Content-Disposition"]
    before = report_figures(a_run)
    fresh_store()
    bad = client.post("/servers/import-run/", {"file": SimpleUploadedFile("r.gz", download.content[:-9])})
    assert bad.status_code == 400 and b"Not imported, nothing was stored" in bad.content
    assert not Server.objects.exists()
    done = client.post("/servers/import-run/", {"file": SimpleUploadedFile("r.gz", download.content)})
    run = Run.objects.get(name="oltp_rw 64")
    assert done.status_code == 302 and done.url == f"/runs/{run.id}/report/"
    assert client.get(done.url).status_code == 200 and report_figures(run) == before


def changed(data: bytes, part: str, key: str, value) -> bytes:
    """The run file with one value of its first run, sample or annotation (part) replaced."""
    document = json.loads(gzip.decompress(data))
    document["servers"][0][part][0][key] = value
    return gzip.compress(json.dumps(document).encode())  # inf as Infinity, a lone surrogate as \ud800


def test_a_lone_surrogate_in_a_run_file_is_a_400_that_says_so(a_run, client, admin_user):
    """The error once quoted the text, and a page holding a lone surrogate cannot be encoded: a 500."""
    client.force_login(admin_user)
    data = changed(export([a_run]), "runs", "notes", "a\ud800")
    fresh_store()
    response = client.post("/servers/import-run/", {"file": SimpleUploadedFile("r.gz", data)})
    assert response.status_code == 400
    assert b"contains a lone UTF-16 surrogate" in response.content
    assert not Server.objects.exists()
