"""The sources the collectors know, and which of them run by default."""

from collectors.source import Source
from collectors.sources import global_status, history_length, innodb_metrics, innodb_mutex, pfs_waits, variables

SOURCES: dict[str, Source] = {
    module.NAME: Source.from_module(module)
    for module in (global_status, pfs_waits, innodb_mutex, history_length, innodb_metrics, variables)
}

# On by default: all of them; innodb_mutex is expensive, so it runs at its own longer interval.
DEFAULT_ON: dict[str, bool] = {
    "global_status": True,
    "pfs_waits": True,
    "innodb_mutex": True,
    "history_length": True,
    "innodb_metrics": True,
    "variables": True,
}


def enabled_sources() -> list[Source]:
    return [source for name, source in SOURCES.items() if DEFAULT_ON.get(name)]


def get(name: str) -> Source:
    try:
        return SOURCES[name]
    except KeyError:
        raise KeyError(f"unknown source {name!r}; known: {', '.join(SOURCES)}") from None
