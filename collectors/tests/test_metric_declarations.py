"""Every source declares what it stores, and docs/metrics.md lists exactly that."""

import re

from django.conf import settings

from alerts import catalog
from collectors.metric import COUNTER, GAUGE
from collectors.registry import SOURCES, declared, declared_metrics, metrics_table
from dashboards.export.units import column_name

DOC = (settings.BASE_DIR / "docs" / "metrics.md").read_text()


def doc_rows() -> list[str]:
    section = DOC.split("## Every declared name", 1)[1].split("\n## ", 1)[0]
    return [line for line in section.splitlines() if re.match(r"\| [a-z_]+ \| `", line)]


def test_the_doc_lists_every_declared_name_with_its_kind_and_unit():
    assert doc_rows() == metrics_table()


def test_every_source_declares_what_it_stores_once():
    names = [m.name for m in declared_metrics()]
    assert len(names) == len(set(names))
    assert all(source.metrics for source in SOURCES.values())
    assert all(m.kind in (COUNTER, GAUGE) and m.unit and m.help for m in declared_metrics())


def test_a_family_member_comes_under_its_family_and_a_name_under_itself():
    assert declared("wait.time_ps:wait/synch/mutex/innodb/trx_sys_mutex").name == "wait.time_ps:"
    assert declared("replica.lag_s").name == "replica.lag_s"
    assert declared("replica.lag_s:ch1").name == "replica.lag_s:"
    assert declared("wait.time_ps:") is None  # a family's bare prefix is no name
    assert declared("Open_tables") is None  # a status variable, stored by its own name


def test_alert_rules_and_csv_headers_take_the_declarations():
    assert catalog.is_known("host.disk.util_pct:vda") and catalog.is_known("trx_read_view_age_s")
    assert "tps" in catalog.names() and "wait.time_ps:" not in catalog.names()
    assert column_name("db1", "history_list_length", GAUGE) == "db1 history_list_length (undo log units)"
    timer = "wait.time_ps:wait/io/file/innodb"
    assert column_name("db1", timer, COUNTER) == f"db1 {timer} (s/s)"
    assert column_name("db1", "host.cpus", GAUGE) == "db1 host.cpus (CPUs)"
