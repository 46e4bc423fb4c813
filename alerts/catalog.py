"""Which metric names a rule may watch: the names of docs/metrics.md, or any the store has seen."""

from collectors.sources import node_exporter
from servers.models import Server
from store import query

NAMES = {
    "tps", "qps", "tps_explicit", "tps_trx_summary", "tps_innodb", "history_list_length",
    "Threads_running", "Threads_connected", "Questions", "Com_commit", "Com_rollback",
    "trx_oldest_age_s", "trx_older_60s", "trx_read_view_age_s", "replica.lag_s", "replica.io_running",
    "replica.sql_running", *node_exporter.STORED_NAMES,
}
PREFIXES = (
    "wait.count:", "wait.time_ps:", "mutex.waits:", "mutex.spins:", "mutex.calls:", "mutex.time_ps:",
    "innodb_metrics:", "var:", "replica.lag_s:", "replica.io_running:", "replica.sql_running:",
    *node_exporter.STORED_PREFIXES,
)
EXAMPLES = ("history_list_length, tps, qps, Threads_running, wait.time_ps:<event>, innodb_metrics:<NAME>, "
            "host.cpu.busy_pct, host.disk.util_pct:<device>")


def is_known(name: str) -> bool:
    if name in NAMES or any(name.startswith(p) and len(name) > len(p) for p in PREFIXES):
        return True
    return seen_in_store(name)


def seen_in_store(name: str) -> bool:
    """A status variable is valid once some server reported it (names differ by flavor and version)."""
    server_ids = list(Server.objects.values_list("id", flat=True))
    if not server_ids:
        return False
    return any(name in query.metric_names(server_id, name) for server_id in server_ids)
