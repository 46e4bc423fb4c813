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
    return GAUGE_UNITS.get(metric, "value")


def column_name(server: str, metric: str, kind: str, mode: str = "rate") -> str:
    """The header of one series: server, metric and unit, e.g. 'db1 tps (/s)'."""
    return f"{server} {metric} ({unit(metric, kind, mode)})"
