"""The unit of a metric as a CSV header shows it (see docs/metrics.md)."""

GAUGE_UNITS = {
    "history_list_length": "undo log units",
    "Threads_running": "threads",
    "Threads_connected": "threads",
    "Threads_cached": "threads",
    "Threads_created": "threads",
}


def base_unit(metric: str) -> str:
    """What one unit of a counter counts: picoseconds for timers, else events."""
    return "ps" if "time_ps" in metric else ""


def unit(metric: str, kind: str, mode: str = "rate") -> str:
    """'/s' for a counter's rate, 'ps/s' for a timer's, 'per interval' for deltas."""
    if kind == "counter":
        base = base_unit(metric)
        if mode == "delta":
            return f"{base} per interval".strip()
        return f"{base}/s"
    return GAUGE_UNITS.get(metric) or suffix_unit(metric)


# Host statistics (node_exporter) say their unit in their name: host.cpu.user_pct, host.disk.await_ms:vda.
SUFFIX_UNITS = {"_pct": "%", "_ms": "ms", "_bytes": "bytes"}


def suffix_unit(metric: str) -> str:
    family = metric.partition(":")[0]
    return next((unit for suffix, unit in SUFFIX_UNITS.items() if family.endswith(suffix)), "value")


def column_name(server: str, metric: str, kind: str, mode: str = "rate") -> str:
    """The header of one series: server, metric and unit, e.g. 'db1 tps (/s)'."""
    return f"{server} {metric} ({unit(metric, kind, mode)})"
