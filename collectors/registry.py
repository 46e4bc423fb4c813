"""The sources the collectors know: every one runs, each at its own interval."""

from functools import lru_cache

from collectors.metric import Metric
from collectors.source import Source
from collectors.sources import (
    global_status,
    history_length,
    innodb_metrics,
    innodb_mutex,
    node_exporter,
    oldest_trx,
    pfs_waits,
    redo_log,
    replication,
    statements,
    variables,
    wait_instruments,
)

# In the order a poll runs them: history_length after the two reads that may already hold its value.
SOURCES: dict[str, Source] = {
    module.SOURCE.name: module.SOURCE
    for module in (global_status, pfs_waits, wait_instruments, innodb_mutex, innodb_metrics, history_length,
                   oldest_trx, variables, replication, redo_log, statements, node_exporter)
}


def all_sources() -> list[Source]:
    return list(SOURCES.values())


def get(name: str) -> Source:
    try:
        return SOURCES[name]
    except KeyError:
        raise KeyError(f"unknown source {name!r}; known: {', '.join(SOURCES)}") from None


def declared_metrics() -> list[Metric]:
    """Every name and family the sources declare they store."""
    return [m for source in SOURCES.values() for m in source.metrics]


@lru_cache(maxsize=65536)  # a wide export asks once per column
def declared(name: str) -> Metric | None:
    """The declaration a stored name comes under: its own, else its family's."""
    found = [m for m in declared_metrics() if m.matches(name)]
    return next((m for m in found if not m.family), found[0] if found else None)


def metrics_table() -> list[str]:
    """The rows of docs/metrics.md's table of every declared name, in the order of the sources."""
    return [f"| {source.name} | `{m.name}` | {m.kind} | {m.unit} | {m.help} |"
            for source in SOURCES.values() for m in source.metrics]
