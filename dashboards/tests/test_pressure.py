"""The InnoDB pressure page over hand-written samples (rates computed here), and on the suite's MariaDB."""

import re
from datetime import UTC, datetime, timedelta

import pytest

from collectors import monitor_enable
from collectors.batch import poll_server
from dashboards.analysis import pressure as spec
from servers.models import Server
from store.ingest import write_samples
from store.sample import Sample
from testing.dashboards import figures, make_server

pytestmark = pytest.mark.django_db
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
STEP, POLLS = 10.0, 20
MAX_AGE = 40_050_893
RANGE = "from=2026-03-02T09:00:00Z&to=2026-03-02T09:05:00Z"


def status(i: int) -> dict:
    """Poll i of a MariaDB: gauges as values, counters as per-interval deltas."""
    return {"Innodb_checkpoint_age": 2**20 * (5 + i), "Innodb_checkpoint_max_age": MAX_AGE,
            "Innodb_buffer_pool_pages_dirty": 100 + i, "Innodb_buffer_pool_pages_free": 3000 - i,
            "Innodb_buffer_pool_pages_flushed": 40 * i, "Innodb_row_lock_waits": 3,
            "Innodb_row_lock_current_waits": i % 2, "Innodb_rows_inserted": 100, "Innodb_rows_updated": 50 + i,
            "Innodb_rows_deleted": 10}


COUNTERS = frozenset({"Innodb_buffer_pool_pages_flushed", "Innodb_row_lock_waits", "Innodb_rows_inserted",
                      "Innodb_rows_updated", "Innodb_rows_deleted"})


def write(server) -> None:
    samples = []
    for i in range(1, POLLS):
        ts = T0 + timedelta(seconds=STEP * i)
        samples.append(Sample(server.pk, "global_status", ts, STEP, status(i), COUNTERS))
        samples.append(Sample(server.pk, "innodb_metrics", ts, STEP, {"innodb_metrics:purge_del_mark_records": 20 * i},
                              frozenset({"innodb_metrics:purge_del_mark_records"})))
    write_samples(samples)


def trace(fig: dict, name: str) -> dict:
    return next(t for t in fig["data"] if t["name"] == name)


def test_it_draws_each_gauge_and_rate_as_computed_by_hand(admin_client):
    server = make_server()
    write(server)
    response = admin_client.get(f"/servers/{server.pk}/pressure/?{RANGE}")
    assert response.status_code == 200
    fig = figures(response)["pressure-chart"]
    polls = range(1, POLLS)
    assert trace(fig, "checkpoint age (MiB)")["y"] == [5 + i for i in polls]
    capacity = next(t for t in fig["data"] if t["name"].startswith("capacity:"))
    assert capacity["y"] == [MAX_AGE / 2**20] * 2
    assert trace(fig, "pages flushed /s")["y"] == [40 * i / STEP for i in polls]
    assert trace(fig, "row lock waits /s")["y"] == [3 / STEP] * (POLLS - 1)
    dml = trace(fig, "DML rows /s (Innodb_rows_inserted + Innodb_rows_updated + Innodb_rows_deleted)")
    assert dml["y"] == [(160 + i) / STEP for i in polls]
    assert trace(fig, "purged delete-marked rows /s")["y"] == [20 * i / STEP for i in polls]


def test_it_says_what_is_off_and_the_sql_that_enables_it(admin_client):
    server = make_server()
    write(server)
    body = admin_client.get(f"/servers/{server.pk}/pressure/?{RANGE}").content.decode()
    assert "<code>Innodb_checkpoint_age</code>" in body
    assert "not collected</span>: enable with <code>SET GLOBAL innodb_monitor_enable = &#x27;module_buffer&#x27;;" \
        in body
    # purge_dml_delay_usec and purge_upd_exist_or_extern_records are off: the purge page's statements, not another
    # module's (audit 4: this page said 'module_purge', the purge page and docs/privileges.md 'purge%', 'trx_undo%')
    said = ("not collected</span>: enable with <code>SET GLOBAL innodb_monitor_enable = &#x27;purge%&#x27;; "
            "SET GLOBAL innodb_monitor_enable = &#x27;trx_undo%&#x27;;</code>")
    assert said in body and "module_purge" not in body
    assert "40,050,893 bytes (status Innodb_checkpoint_max_age" in body


def test_mysql_redo_capacity_comes_from_its_settings():
    assert spec.redo_capacity({spec.LOG_FILE_SIZE: 50331648, spec.LOG_FILES: 2}).bytes == 100663296
    assert spec.redo_capacity({spec.REDO_CAPACITY: 104857600, spec.LOG_FILE_SIZE: 1}).bytes == 104857600
    assert spec.redo_capacity({}) is None


def test_a_gap_in_one_dml_counter_is_a_gap_in_the_sum():
    a = spec.Summed([1, 2, 3], [1, None, 3])
    b = spec.Summed([1, 2, 3, 4], [10, 20, 30, 40])
    assert spec.summed([a, b]) == spec.Summed([1, 2, 3, 4], [11, None, 33, None])  # a has no poll 4


def test_it_draws_what_the_collectors_read_from_the_suites_mariadb(admin_client, mariadb):
    server = Server(name="pressure-live", host="127.0.0.1", port=mariadb.port, user="steady")
    server.password = "s3cret!"
    server.save()
    for _ in range(2):
        poll_server(server.id, only=["global_status", "innodb_metrics"])
    fig = figures(admin_client.get(f"/servers/{server.pk}/pressure/?range=1h"))["pressure-chart"]
    names = {t["name"] for t in fig["data"]}
    assert {"checkpoint age (MiB)", "dirty pages", "free pages", "pages flushed /s",
            "DML rows /s (Handler_write + Handler_update + Handler_delete)"} <= names  # MariaDB: no Innodb_rows_*
    assert any(n.startswith("capacity: status Innodb_checkpoint_max_age") for n in names)



def test_it_gives_the_option_file_line_that_keeps_the_counters_on():
    # The buffer module's counters are off (the flush lines), and the purge module's (the purged-rows and delay
    # lines): one option line lists both modules, in the page's order.
    modules = spec.missing_modules(spec.LINES, {line.key: None for line in spec.LINES})
    assert monitor_enable.option_line(modules) == "innodb_monitor_enable=module_log,module_buffer,purge%,trx_undo%"
    assert monitor_enable.option_line([]) == ""


def test_the_page_says_the_option_file_line(admin_client):
    server = make_server()
    write(server)  # checkpoint age from status: only the buffer and purge modules are off
    body = admin_client.get(f"/servers/{server.pk}/pressure/?{RANGE}").content.decode()
    assert "add <code>innodb_monitor_enable=module_buffer,purge%,trx_undo%</code> to the server's option file" in body


def test_the_option_file_line_says_to_join_an_existing_one(admin_client, mariadb):
    """innodb_monitor_enable is one list: a second line in my.cnf would replace the user's own, so the page
    says to add the modules to an existing line (MariaDB 10.11 has the purge module off by default)."""
    server = Server(name="pressure-option-line", host="127.0.0.1", port=mariadb.port, user="steady")
    server.password = "s3cret!"
    server.save()
    for _ in range(2):
        poll_server(server.id, only=["global_status", "innodb_metrics"])
    body = admin_client.get(f"/servers/{server.pk}/pressure/?range=1h").content.decode()
    (entries,) = re.findall(r"add <code>innodb_monitor_enable=([a-z_,%]+)</code> to the server's option file", body)
    assert entries.split(",")[-2:] == ["purge%", "trx_undo%"]
    said = (f"if the file has an <code>innodb_monitor_enable</code> line already, add <code>,{entries}</code> "
            "to the end of its list instead (inside its quotes if it has any, before any <code>#</code> comment)")
    assert said in " ".join(body.split())
