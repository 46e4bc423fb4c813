"""The unit of a metric as a CSV header shows it (see docs/metrics.md)."""

GAUGE_UNITS = {
    "history_list_length": "undo log units",
    "Threads_running": "threads",
    "Threads_connected": "threads",
    "Threads_cached": "threads",
    "Threads_created": "threads",
    "Innodb_checkpoint_age": "bytes",
    "Innodb_checkpoint_max_age": "bytes",
    "Innodb_buffer_pool_bytes_data": "bytes",
    "Innodb_buffer_pool_bytes_dirty": "bytes",
    "trx_oldest_age_s": "s",
    "trx_read_view_age_s": "s",
    "trx_older_60s": "transactions",
}
# Families named with their channel after a colon (replica.lag_s:ch1): the unit of the part before it.
FAMILY_UNITS = {
    "replica.lag_s": "s",
    # 1 = Yes, 0 = No or Connecting; a row of several polls holds their mean: the share running
    "replica.io_running": "1 = running",
    "replica.sql_running": "1 = running",
}


PS_PER_S = 1e12


def base_unit(metric: str) -> str:
    """What one unit of a counter is in the CSV: seconds for timers (as the charts show them), else events."""
    return "s" if "time_ps" in metric else ""


def scale(metric: str) -> float:
    """From the store's unit to the CSV's: picosecond timers as seconds."""
    return 1 / PS_PER_S if "time_ps" in metric else 1.0


def unit(metric: str, kind: str, mode: str = "rate", per: str = "interval") -> str:
    """'/s' for a counter's rate, 's/s' for a timer's (seconds waited per second), 'per <step>' for deltas."""
    if kind == "counter":
        base = base_unit(metric)
        if mode == "delta":
            return f"{base} per {per}".strip()
        return f"{base}/s"
    return GAUGE_UNITS.get(metric) or FAMILY_UNITS.get(metric.partition(":")[0]) or suffix_unit(metric)


# Host statistics (node_exporter) say their unit in their name: host.cpu.user_pct, host.disk.await_ms:vda.
SUFFIX_UNITS = {"_pct": "%", "_ms": "ms", "_bytes": "bytes"}


def suffix_unit(metric: str) -> str:
    family = metric.partition(":")[0]
    return next((unit for suffix, unit in SUFFIX_UNITS.items() if family.endswith(suffix)), "value")


def column_name(server: str, metric: str, kind: str, mode: str = "rate", per: str = "interval") -> str:
    """The header of one series: server, metric and unit, e.g. 'db1 tps (/s)'."""
    return f"{server} {metric} ({unit(metric, kind, mode, per)})"
