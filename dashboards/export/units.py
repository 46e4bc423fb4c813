"""The unit of a metric as a CSV header shows it: the unit its source declares (docs/metrics.md)."""

import re
from functools import lru_cache

from collectors.metric import PS, PS_PER_S
from collectors.registry import declared

GENERIC = "value"  # what a family declares when its values' unit is the server's (INNODB_METRICS, variables)
# Buffer pool page counts, as status (Innodb_buffer_pool_pages_dirty) and INNODB_METRICS (buffer_pool_pages_free).
PAGES = re.compile(r"(Innodb_|innodb_metrics:)buffer_pool_pages_")


def base_unit(metric: str) -> str:
    """What one unit of a counter is in the CSV: seconds for timers (as the charts show them), else events."""
    return "s" if is_timer(metric) else ""


@lru_cache(maxsize=65536)  # a wide export asks once per column and chunk
def scale(metric: str) -> float:
    """From the store's unit to the CSV's: picosecond timers as seconds."""
    return 1 / PS_PER_S if is_timer(metric) else 1.0


def is_timer(metric: str) -> bool:
    found = declared(metric)
    return found is not None and found.unit == PS


def unit(metric: str, kind: str, mode: str = "rate", per: str = "interval") -> str:
    """'/s' for a counter's rate, 's/s' for a timer's (seconds waited per second), 'per <step>' for deltas."""
    if kind == "counter":
        base = base_unit(metric)
        if mode == "delta":
            return f"{base} per {per}".strip()
        return f"{base}/s"
    found = declared(metric)
    return found.unit if found and found.unit != GENERIC else name_unit(metric)


def name_unit(metric: str) -> str:
    """The unit a name says, where no declaration does: pages, or a suffix's."""
    return "pages" if PAGES.match(metric) else suffix_unit(metric)


# A name no source declares (a status variable) may say its unit in its name: Innodb_data_pending_fsyncs_ms.
SUFFIX_UNITS = {"_pct": "%", "_ms": "ms", "_bytes": "bytes"}


def suffix_unit(metric: str) -> str:
    family = metric.partition(":")[0]
    return next((unit for suffix, unit in SUFFIX_UNITS.items() if family.endswith(suffix)), GENERIC)


def column_name(server: str, metric: str, kind: str, mode: str = "rate", per: str = "interval") -> str:
    """The header of one series: server, metric and unit, e.g. 'db1 tps (/s)'."""
    return f"{server} {metric} ({unit(metric, kind, mode, per)})"
