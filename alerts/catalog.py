"""Which metric names a rule may watch: those the sources declare, or any the store has seen."""

from collectors.registry import declared, declared_metrics
from servers.models import Server
from store import query

EXAMPLES = ("history_list_length, tps, qps, Threads_running, wait.time_ps:<event>, innodb_metrics:<NAME>, "
            "host.cpu.busy_pct, host.disk.util_pct:<device>")


def names() -> list[str]:
    """The names a rule form offers: every one declared, families left to the Explorer."""
    return sorted(m.name for m in declared_metrics() if not m.family)


def is_known(name: str) -> bool:
    if declared(name) is not None:
        return True
    return seen_in_store(name)


def seen_in_store(name: str) -> bool:
    """A status variable is valid once some server reported it (names differ by flavor and version)."""
    server_ids = list(Server.objects.values_list("id", flat=True))
    if not server_ids:
        return False
    return any(name in query.metric_names(server_id, name) for server_id in server_ids)
