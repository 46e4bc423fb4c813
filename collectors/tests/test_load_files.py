"""Loading collection files: twice stores once, marks become runs and annotations, bad files store nothing.

The collection is made by `python -m collectors.standalone` (no Django settings, nowhere to reach
PostgreSQL or Redis), with a mark sent by `collect mark` while it runs.
"""

import gzip
import json
import os
import random
import re
import signal
import time
import urllib.error
import urllib.request
from datetime import UTC, datetime, timedelta
from urllib.parse import urlencode

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from collectors.collect_file import (
    FORMAT_VERSION,
    CollectionFileError,
    CorruptFile,
    NewerFormat,
    NotACollection,
    TruncatedFile,
    Writer,
    open_for_collection,
    survey,
)
from collectors.models import TrxHolder
from collectors.replay import LoadError, load
from collectors.standalone import mark
from servers.models import Annotation, Run, Server
from store import query
from testing.collect import hand_made, records, reencode, start_collect, wait_for_polls
from testing.mariadb import free_port


@pytest.fixture(scope="module")
def collected(tmp_path_factory, mariadb):
    path = tmp_path_factory.mktemp("collection") / "small.ssc"
    proc = start_collect(mariadb.port, path, "--interval", "1", "--duration", "4", "--run", "small",
                         module=True)
    wait_for_polls(path, 2, 60)
    mark(path, annotate="restarted the load")
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 0, out
    return path


def stored_rows() -> int:
    with connection.cursor() as cur:
        cur.execute("SELECT count(*) FROM store_raw")
        return cur.fetchone()[0]


def test_loading_twice_stores_once(collected, db):
    first = load(collected.read_bytes(), "small")
    rows, runs, notes = stored_rows(), Run.objects.count(), Annotation.objects.count()
    again = load(collected.read_bytes(), "small")
    assert again.server.id == first.server.id
    assert (first.new, again.new) == (first.samples, 0) and again.samples == first.samples
    assert (stored_rows(), Run.objects.count(), Annotation.objects.count()) == (rows, runs, notes)
    polls = [r for r in records(collected) if r["type"] == "poll"]
    assert first.polls == len(polls) >= 4 and first.ended and not first.server.enabled
    # Each poll's readings after the first give one sample per source with values (the first: gauges only).
    assert rows == first.samples > len(polls)


def test_the_collector_without_settings_reads_every_source_it_can(collected):
    """statements failed at every read of `python -m collectors.standalone` (ImproperlyConfigured: it asked the
    Django settings for STATEMENTS_TOP_N), so no collection file held a statement digest."""
    polls = [r for r in records(collected) if r["type"] == "poll"]
    assert [f for r in polls for f in r["failed"] if not f.get("unavailable")] == []
    assert any(reading["source"] == "statements" for r in polls for reading in r["readings"])


def test_marks_become_the_run_and_the_annotation(collected, db):
    report = load(collected.read_bytes(), "small")
    raw = records(collected)
    run = Run.objects.get(server=report.server, name="small")
    starts = [r["at"] for r in raw if r.get("run_start") == "small"]
    ends = [r["at"] for r in raw if r.get("run_end") == "small"]
    assert (run.started_at.timestamp(), run.ended_at.timestamp()) == pytest.approx((starts[0], ends[-1]), abs=1e-3)
    note = Annotation.objects.get(server=report.server)
    assert note.text == "restarted the load" and report.annotations == 1


def nothing_stored_after(error, data: bytes) -> str:
    with pytest.raises(error) as caught:
        load(data, "bad", "bad.ssc")
    assert Server.objects.count() == 0 and stored_rows() == 0
    return str(caught.value)


def test_a_corrupt_file_stores_nothing(collected, db):
    members = [gzip.compress((json.dumps(r) + "\n").encode(), mtime=0) for r in records(collected)]
    damaged = bytearray(members[3])
    damaged[len(damaged) // 2] ^= 0xFF  # inside the deflate data of a poll in the middle
    data = b"".join(members[:3]) + bytes(damaged) + b"".join(members[4:])
    message = nothing_stored_after(CorruptFile, data)
    assert "damaged" in message and f"at byte {sum(map(len, members[:3]))}" in message


def test_a_record_that_is_not_a_reading_is_corrupt(collected, db):
    lines = records(collected)
    poll = next(r for r in lines if r["type"] == "poll" and r["readings"])
    poll["readings"][0]["values"] = {"Com_commit": "many"}
    assert "not all numbers" in nothing_stored_after(CorruptFile, reencode(lines))


def test_a_truncated_file_stores_nothing_unless_asked_for_its_complete_records(collected, db):
    data = collected.read_bytes()
    message = nothing_stored_after(TruncatedFile, data[:-7])
    assert "truncated" in message and "--partial" in message and "Nothing was stored" in message
    report = load(data[:-7], "cut", partial=True)  # the cut record is the end record: every poll is there
    assert not report.ended and report.polls == len([r for r in records(collected) if r["type"] == "poll"])


def test_a_file_from_a_newer_format_stores_nothing(collected, db):
    lines = records(collected)
    lines[0]["version"] = FORMAT_VERSION + 1
    message = nothing_stored_after(NewerFormat, reencode(lines))
    assert f"version {FORMAT_VERSION + 1}" in message and "newer" in message


def test_other_files_are_not_collections(db, tmp_path):
    assert "not gzip" in nothing_stored_after(NotACollection, b"Variable_name\tValue\n")
    assert "no steadystate-collection header" in nothing_stored_after(NotACollection, reencode([{"type": "x"}]))


def test_the_command_says_why_and_a_name_of_another_server_is_refused(collected, db, make_server):
    make_server("small", free_port())  # another address under the name
    with pytest.raises(CommandError, match="exists here at 127.0.0.1:"):
        call_command("load", str(collected), "--as", "small")
    bad = collected.with_name("bad.ssc")
    bad.write_bytes(collected.read_bytes()[:-7])
    with pytest.raises(CommandError, match="truncated"):
        call_command("load", str(bad), "--as", "other")
    with pytest.raises(LoadError):
        load(collected.read_bytes(), " ")


def test_a_file_it_cannot_read_is_named_without_a_traceback(db, tmp_path):
    missing = tmp_path / "gone.ssc"
    with pytest.raises(CommandError) as error:
        call_command("load", str(missing), "--as", "other")
    assert str(error.value) == f"{missing}: cannot read it (No such file or directory)"
    assert not Server.objects.filter(name="other").exists()


def test_records_larger_than_a_read_chunk_are_read_whole_and_a_cut_inside_one_is_found():
    values = {f"wait.time_ps:event/{i}": random.getrandbits(70) for i in range(20_000)}  # several 64 kB chunks packed
    lines = [{"type": "header", "format": "steadystate-collection", "version": 1, "server": {}},
             {"type": "poll", "at": 1.0, "readings": [], "failed": [], "values": values}, {"type": "end", "at": 2.0}]
    data = reencode(lines)
    contents = survey(data)
    assert (contents.count, contents.ended, contents.good_bytes) == (2, True, len(data))
    head, big = len(reencode(lines[:1])), len(reencode(lines[1:2]))
    assert big > 3 * 64 * 1024  # several read chunks
    with pytest.raises(TruncatedFile) as cut:
        survey(data[: head + big // 2])
    assert cut.value.complete.count == 0 and f"record at byte {head}" in str(cut.value)


def holder(age: int) -> dict:
    return {"key": "42/1234/2026-01-05 09:59:55", "thread_id": 42, "user": "app", "host": "10.0.0.5",
            "isolation": "REPEATABLE-READ", "statement": "SELECT * FROM t", "state": "", "command": "Sleep",
            "idle": True, "age_s": age}


def test_the_oldest_transaction_holder_is_kept_as_the_worker_keeps_it(db):
    lines = hand_made([100, 110, 120, 130])
    polls = [r for r in lines if r["type"] == "poll"]
    for poll, found in zip(polls, (None, holder(5), holder(15), None), strict=True):
        poll["readings"].append({"source": "oldest_trx", "read_at": poll["at"], "boot": None,
                                 "values": {"trx_oldest_age_s": found["age_s"] if found else 0},
                                 "counters": [], "extra": {"holder": found}})
    data = reencode(lines)
    for _ in range(2):  # loading again keeps one row
        report = load(data, "lab-db")
    (row,) = TrxHolder.objects.filter(server=report.server)
    assert (row.thread_id, row.user, row.statement, row.idle) == (42, "app", "SELECT * FROM t", True)
    assert row.started_at.timestamp() == polls[1]["at"] - 5
    assert (row.seen_at.timestamp(), row.ended_at.timestamp()) == (polls[2]["at"], polls[3]["at"])


@pytest.mark.parametrize("damage, words", [
    (lambda reading: reading["counters"].append("Com_rollback"), "names counters it has no value for"),
    (lambda reading: reading["values"].update(Threads_running=True), "not all numbers"),
    (lambda reading: reading.update(extra={"holder": {"key": 7}}), "holder lacks a field"),
    (lambda reading: reading.update(derive={"function": "os:system", "args": ["true"]}), "no source of this"),
])
def test_a_reading_the_engine_cannot_take_is_refused(db, damage, words):
    lines = hand_made([100, 110, 120])
    damage(lines[2]["readings"][0])
    assert words in nothing_stored_after(CorruptFile, reencode(lines))


def test_ctrl_c_while_a_record_is_written_waits_for_its_end(tmp_path, monkeypatch):
    path = tmp_path / "interrupted.ssc"
    writer = Writer(path)
    writer.write(hand_made([1])[0])
    write = os.write

    def interrupted(fd, data):  # the disk takes half the record, then the user presses Ctrl-C
        monkeypatch.setattr(os, "write", write)  # once: the rest of the record goes through as usual
        half = write(fd, data[: len(data) // 2])
        os.kill(os.getpid(), signal.SIGINT)
        return half

    # Python's own Ctrl-C handler, whatever an earlier test in this process left installed.
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    monkeypatch.setattr(os, "write", interrupted)
    try:
        with pytest.raises(KeyboardInterrupt):
            writer.write(hand_made([1])[1])
    finally:
        signal.signal(signal.SIGINT, before)
    monkeypatch.undo()
    writer.close()
    assert survey(path.read_bytes()).count == 1  # the record is whole: the interrupt waited for its end


def test_node_exporter_readings_load_with_their_cpu_percentages(tmp_path, mariadb, node_exporter_url, db):
    path = tmp_path / "host.ssc"
    proc = start_collect(mariadb.port, path, "--interval", "1", "--duration", "3",
                         query=urlencode({"node_exporter": node_exporter_url}))
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 0, out
    host = [r for r in records(path) if r["type"] == "poll" for r in r["readings"] if r["source"] == "node_exporter"]
    assert len(host) >= 3 and host[0]["derive"]["function"] == "collectors.sources.node_exporter:derive"
    report = load(path.read_bytes(), "host")
    modes = [n for n in host[0]["values"] if n.startswith("host.cpu.seconds.") and ":" not in n]
    expected = []  # user's share of the CPU seconds of every mode, as mpstat computes it
    for before, now in zip(host, host[1:], strict=False):
        spent = {n: now["values"][n] - before["values"][n] for n in modes}
        expected.append(100.0 * spent["host.cpu.seconds.user"] / sum(spent.values()))
    span = (report.first, report.last + timedelta(minutes=1))  # the last poll's readings come after its start
    (series,) = query.within(report.server.id, ["host.cpu.user_pct"], *span)
    assert series.values == pytest.approx(expected)


def test_resuming_drops_a_cut_last_record_and_refuses_another_servers_file(tmp_path):
    path = tmp_path / "resumed.ssc"
    lines = hand_made([100, 110])
    whole = reencode(lines[:-1])  # killed: no end record
    path.write_bytes(whole + reencode(lines[-1:])[:9])  # and cut inside the record it was writing
    server = lines[0]["server"]
    writer, note = open_for_collection(path, server, 10, 0.0)
    assert "2 records kept" in note and "cut off (9 bytes) and is dropped" in note
    writer.write({"type": "end", "at": 1.0})
    writer.close()
    contents = survey(path.read_bytes())
    assert (contents.count, contents.ended) == (3, True)
    with pytest.raises(CollectionFileError, match="holds a collection of steady@lab-db:3306"):
        open_for_collection(path, {**server, "address": "other:3306"}, 10, 0.0)


def api_post(port: int, path: str, body: dict) -> tuple[int, dict]:
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json", "Authorization": "Bearer sst_x"})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_a_benchmark_script_marks_its_runs_through_the_collectors_api(tmp_path, mariadb, db):
    path, port = tmp_path / "api.ssc", free_port()
    proc = start_collect(mariadb.port, path, "--interval", "1", "--duration", "6", "--api", str(port))
    wait_for_polls(path, 1, 60)
    status, run = api_post(port, "/api/runs", {"name": "rw x8", "server": "db1", "concurrency": 8,
                                               "sweep": "rw", "notes": "buffer pool 1G"})
    assert status == 201 and run["id"] == 1
    assert api_post(port, "/api/annotations", {"text": "flush neighbors off"})[0] == 201
    assert api_post(port, "/api/runs", {"name": "x", "concurrency": "eight"}) == (
        400, {"error": "'concurrency' must be a whole number (a JSON number such as 4, not a string or true/false),"
                       ' got "eight"'})
    assert api_post(port, "/api/runs/9/end", {})[0] == 404
    time.sleep(1.5)
    status, ended = api_post(port, "/api/runs/1/end", {"tool_summary": "tps 812"})
    assert status == 200 and ended["name"] == "rw x8"
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 0 and f"127.0.0.1:{port}/api/" in out, out
    report = load(path.read_bytes(), "api-db")
    run = Run.objects.get(server=report.server)
    assert (run.name, run.concurrency, run.sweep, run.notes, run.tool_summary) == (
        "rw x8", 8, "rw", "buffer pool 1G", "tps 812")
    assert 1.0 < (run.ended_at - run.started_at).total_seconds() < 6
    assert Annotation.objects.get(server=report.server).text == "flush neighbors off"


def test_text_a_database_cannot_hold_is_refused_not_a_crash(db):
    lines = hand_made([100, 110])
    lines.insert(2, {"type": "mark", "at": lines[1]["at"], "annotate": "nul \x00 byte"})
    with pytest.raises(CorruptFile, match="damaged"):
        load(reencode(lines), "lab-db")
    with pytest.raises(LoadError, match="printable"):
        load(reencode(hand_made([1])), "lab\x00db")
    assert not Server.objects.exists()


@pytest.mark.parametrize("mark, words", [
    ({"run_start": "bench \x1b[31mred"}, "'name' cannot hold control characters (U+001B)"),
    ({"annotate": "bell\x07"}, "'text' cannot hold control characters (U+0007)"),
    ({"run_start": "bench", "fields": {"sweep": "A\rB"}}, "'sweep' cannot hold control characters (U+000D)"),
])
def test_a_hand_edited_mark_with_a_control_character_is_refused(db, mark, words):
    lines = hand_made([100, 110])
    lines.insert(2, {"type": "mark", "at": lines[1]["at"], **mark})
    with pytest.raises(CorruptFile, match=re.escape(words)):
        load(reencode(lines), "lab-db")
    assert not Server.objects.exists() and not Run.objects.exists() and not Annotation.objects.exists()


def test_an_annotation_keeps_its_tabs_and_line_breaks_from_a_file(db):
    lines = hand_made([100, 110])
    lines.insert(2, {"type": "mark", "at": lines[1]["at"], "annotate": "load\tup\nagain"})
    load(reencode(lines), "lab-db")
    assert Annotation.objects.get().text == "load\tup\nagain"


def test_a_restart_during_the_collection_resets_without_a_spike(db):
    lines = hand_made([100, 160, 5, 25])  # the server restarted between the 2nd and 3rd reading
    polls = [r for r in lines if r["type"] == "poll"]
    for poll, uptime in zip(polls[2:], (3, 13), strict=True):
        reading = poll["readings"][0]
        reading["values"]["Uptime"], reading["boot"] = uptime, poll["at"] - uptime
    report = load(reencode(lines), "restarted")
    span = (report.first, report.last + timedelta(minutes=1))
    stored = query.counter_samples(report.server.id, ["Com_commit"], *span)["Com_commit"]
    assert stored.deltas == [60, 20]  # 5 commits since the restart are no interval's: no -155, no 5
    assert [t.timestamp() for t in stored.ts] == [polls[1]["at"], polls[3]["at"]]


def test_a_file_overlapping_polls_the_server_holds_of_its_own_is_refused(db):
    """Loaded into a server polled here (same name and address), the file's polls were kept beside the worker's:
    every counter of the overlap counted twice (seen live: Questions 302 in a minute, 140 from either alone)."""
    t0 = 1767607200.0
    first = load(reencode(hand_made([100, 160, 200, 260], t0=t0)), "lab")
    span = (first.first - timedelta(minutes=1), first.last + timedelta(minutes=1))
    assert query.totals(first.server.id, ["Com_commit"], *span) == {"Com_commit": 160}  # 260 - 100
    # Another observer of the same server, 5 s apart from the first: the worker's polls, or a second collection.
    with pytest.raises(LoadError, match="'lab' holds polls of its own from 2026-01-05 10:00:10 UTC on"):
        load(reencode(hand_made([130, 190, 230], t0=t0 + 5)), "lab")
    assert query.totals(first.server.id, ["Com_commit"], *span) == {"Com_commit": 160}
    assert load(reencode(hand_made([100, 160, 200, 260], t0=t0)), "lab").new == 0  # the same file again
    later = load(reencode(hand_made([300, 340], t0=t0 + 3600)), "lab")  # an hour on: no poll of its own there
    assert later.new == later.samples == 2


def status_reads_by_collection(path) -> list[list[float]]:
    """Each collection process's global_status read times, as the file's end records divide them."""
    found: list[list[float]] = [[]]
    for record in records(path):
        if record["type"] == "poll":
            found[-1] += [r["read_at"] for r in record["readings"] if r["source"] == "global_status"]
        elif record["type"] == "end":
            found.append([])
    return [reads for reads in found if reads]


def test_a_collection_resumed_with_the_same_run_loads_as_two_runs_each_with_its_own_polls(tmp_path, mariadb, db):
    path = tmp_path / "resumed.ssc"
    for _ in range(2):  # docs/walkthrough-collect-offline.md: run the same command again
        proc = start_collect(mariadb.port, path, "--interval", "1", "--duration", "3", "--run", "again", module=True)
        out, _ = proc.communicate(timeout=60)
        assert proc.returncode == 0, out
        time.sleep(3)  # nobody collects: the first poll after the gap carries its delta
    report = load(path.read_bytes(), "resumed-db")
    collections = status_reads_by_collection(path)
    resumed_at = [r["at"] for r in records(path) if r.get("run_start") == "again"][1]
    runs = list(Run.objects.filter(server=report.server).order_by("started_at"))
    assert [run.name for run in runs] == [
        "again", f"again (resumed {datetime.fromtimestamp(resumed_at, UTC):%Y-%m-%d %H:%M:%S} UTC)"]
    assert report.runs == [run.name for run in runs] and len(collections) == 2
    span = (report.first - timedelta(minutes=1), report.last + timedelta(minutes=1))
    stored = query.counter_samples(report.server.id, ["Questions"], *span)["Questions"]
    samples = [(ts.timestamp(), seconds) for ts, seconds in zip(stored.ts, stored.seconds, strict=True)]
    for run, reads in zip(runs, collections, strict=True):
        inside = [ts for ts, seconds in samples
                  if ts - seconds >= run.started_at.timestamp() and ts <= run.ended_at.timestamp()]
        assert inside == pytest.approx(reads[1:], abs=1e-3)  # its first poll is a baseline, or spans the gap
    gap = next(seconds for ts, seconds in samples if ts == pytest.approx(collections[1][0], abs=1e-3))
    assert gap >= 3  # that delta is stored, in neither run


@pytest.mark.parametrize("field, value, words", [
    ("host", "db\x1b[31m", "its header's server host is damaged: The host cannot hold control characters (U+001B)"),
    ("user", "steady\x07", "its header's server user is damaged: The user cannot hold control characters (U+0007)"),
])
def test_a_header_whose_host_or_user_holds_a_control_character_stores_nothing(db, field, value, words):
    """The server form, addserver, the API and import_run refuse these; a collection file made by hand with them
    in its header is refused as damaged, naming the field, before any server or sample is stored."""
    lines = hand_made([100, 110])
    lines[0]["server"][field] = value
    message = nothing_stored_after(CorruptFile, reencode(lines))
    assert message.startswith(f"bad.ssc: {words}: use letters, digits, spaces and punctuation.")
    assert message.endswith("Nothing was stored.")
