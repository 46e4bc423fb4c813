"""The change buffer's sizes, in pages, as the server has them: MariaDB 10.11 shows them in 64-bit words whose high
half is not theirs (an empty buffer's 1 page read 4355096838145)."""

from collections.abc import Mapping

from collectors.batch import poll_server
from collectors.metric import GAUGE
from dashboards.export.units import column_name


def polled(server, source: str) -> Mapping[str, int | float]:
    outcome = poll_server(server.id, only=[source]).sources[0]
    assert outcome.ok and outcome.sample is not None, outcome.error
    return outcome.sample.values


def test_an_empty_change_buffer_reads_its_root_page_and_its_segment_adds_up(server, mariadb):
    # MariaDB 10.6.7+ buffers no change by default (10.9+ whatever the option says): the tree is its root page.
    assert mariadb.execute("SELECT @@innodb_change_buffering") == [("none",)]
    status = polled(server, "global_status")
    size, free, segment = (status[f"Innodb_ibuf_{n}"] for n in ("size", "free_list", "segment_size"))
    assert size == 1
    assert segment == size + free + 1  # the tree, its free list and the segment's header page
    assert polled(server, "innodb_metrics")["innodb_metrics:ibuf_size"] == 1  # the same, as INNODB_METRICS says it
    assert column_name("db", "Innodb_ibuf_size", GAUGE) == "db Innodb_ibuf_size (pages)"
    assert column_name("db", "Innodb_ibuf_segment_size", GAUGE) == "db Innodb_ibuf_segment_size (pages)"
    assert column_name("db", "innodb_metrics:ibuf_size", GAUGE) == "db innodb_metrics:ibuf_size (pages)"
