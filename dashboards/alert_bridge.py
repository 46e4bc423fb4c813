"""Firing alerts per server, read from the alerts app; empty if its tables are not there yet."""

from collections import defaultdict
from collections.abc import Iterable

from django.apps import apps
from django.db import DatabaseError


def firing_alerts(server_ids: Iterable[int]) -> dict[int, list[str]]:
    """server id -> the names of its rules that are firing now."""
    try:
        event = apps.get_model("alerts", "Event")
        rows = list(event.objects.filter(server_id__in=list(server_ids), resolved_at__isnull=True)
                    .select_related("rule").order_by("-opened_at"))
    except (LookupError, DatabaseError):
        return {}
    firing: dict[int, list[str]] = defaultdict(list)
    for row in rows:
        firing[row.server_id].append(f"{row.rule.name} ({row.key})" if row.key else row.rule.name)
    return dict(firing)
