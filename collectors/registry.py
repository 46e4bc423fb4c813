"""The sources the collectors know: every one runs, each at its own interval."""

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
)

# In the order a poll runs them: history_length after the two reads that may already hold its value.
SOURCES: dict[str, Source] = {
    module.SOURCE.name: module.SOURCE
    for module in (global_status, pfs_waits, innodb_mutex, innodb_metrics, history_length, oldest_trx, variables,
                   replication, redo_log, statements, node_exporter)
}


def all_sources() -> list[Source]:
    return list(SOURCES.values())


def get(name: str) -> Source:
    try:
        return SOURCES[name]
    except KeyError:
        raise KeyError(f"unknown source {name!r}; known: {', '.join(SOURCES)}") from None
