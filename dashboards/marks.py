"""Annotations and runs of some servers within a range, as marks for the charts."""

from collections.abc import Iterable
from datetime import datetime

from django.db.models import Q

from dashboards.figures.common import GAP_FILL, Mark
from servers.models import Annotation, Run
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
