"""Annotations and runs of some servers within a range, and the reference lines of the purge chart."""

from collections.abc import Iterable
from datetime import datetime
from fnmatch import fnmatchcase

from django.db.models import Q

from alerts.models import Rule
from dashboards.figures.common import GAP_FILL, Mark
from dashboards.figures.purge import Reference
from servers.models import Annotation, Run, Server
from store import query


def marks_for(server_ids: Iterable[int], start: datetime, end: datetime) -> list[Mark]:
    """Annotations of these servers (or of no server: fleet-wide) and the runs overlapping the range."""
    ids = list(server_ids)
    notes = Annotation.objects.filter(Q(server_id__in=ids) | Q(server__isnull=True), at__gte=start, at__lte=end)
    runs = Run.objects.filter(server_id__in=ids, started_at__lte=end).filter(
        Q(ended_at__isnull=True) | Q(ended_at__gte=start)
    )
    marks = [Mark(n.text, n.at) for n in notes]
    marks += [Mark(f"run: {r.name}", max(r.started_at, start), min(r.ended_at or end, end)) for r in runs]
    return sorted(marks, key=lambda m: m.start)


def gap_marks(server_id: int, start: datetime, end: datetime) -> list[Mark]:
    """Holes the store recorded (e.g. its buffer overflowed while Postgres was down), shaded grey."""
    return [Mark(f"no data: {reason}", max(g0, start), min(g1, end), GAP_FILL)
            for g0, g1, reason in query.gaps(server_id, start, end)]


def server_marks(server_id: int, start: datetime, end: datetime) -> list[Mark]:
    return sorted(marks_for([server_id], start, end) + gap_marks(server_id, start, end), key=lambda m: m.start)


HISTORY = "history_list_length"


def history_rules(server: Server) -> list[Rule]:
    """The enabled alert rules that fire when this server's history length is above a value (above 0 or less, as a
    rule saved before they were refused: no threshold to draw or to judge the page by)."""
    rules = Rule.objects.filter(enabled=True, kind=Rule.THRESHOLD, threshold__gt=0)
    rules = rules.filter(Q(server=server) | Q(server__isnull=True))
    return [r for r in rules.order_by("threshold", "name") if fnmatchcase(HISTORY, r.metric)
            and (r.server_id == server.pk or not r.tag or r.tag in server.tags)]


def purge_references(server: Server, max_purge_lag: float | None) -> list[Reference]:
    """The history lengths that apply to this server: its innodb_max_purge_lag (when set), its rules'."""
    refs = [Reference(f"innodb_max_purge_lag {max_purge_lag:,.0f}", max_purge_lag, True)] if max_purge_lag else []
    return refs + [Reference(f"rule '{r.name}': above {r.threshold:,.0f}", r.threshold) for r in history_rules(server)]
