"""The years a time given by a user or a script may fall in: 1970 to 2100, checked on entry and by the database.

Outside them a time is a typo or an attack: year 1 with a positive offset is year 0 in UTC, which
PostgreSQL stores but Python cannot read back, and far dates overflow the arithmetic of every page.
"""

from datetime import UTC, datetime

from django.core.exceptions import ValidationError
from django.db import models

EARLIEST = datetime(1970, 1, 1, tzinfo=UTC)
LATEST = datetime(2100, 1, 1, tzinfo=UTC)
BOUNDS = "between 1970-01-01 and 2100-01-01 (UTC)"


def out_of_bounds(ts: datetime) -> bool:
    """True for a time outside the bounds; a naive time is taken as UTC."""
    if ts.tzinfo is None:
        ts = ts.replace(tzinfo=UTC)
    return not EARLIEST <= ts <= LATEST


def within_bounds(ts: datetime) -> None:
    """Model field validator (forms, the admin): the message says the range."""
    if ts is not None and out_of_bounds(ts):
        raise ValidationError(f"Give a time {BOUNDS}; {ts.isoformat()} is outside.", code="time_bounds")


class UtcDateTimeField(models.DateTimeField):
    """A DateTimeField handing PostgreSQL its times in UTC: Python reads offsets up to ±23:59, PostgreSQL
    only up to ±15:59, so a valid 2026-11-27T14:00:00+23:59 failed the INSERT (an HTTP 500)."""

    def get_prep_value(self, value):
        value = super().get_prep_value(value)
        if not isinstance(value, datetime) or value.tzinfo is None:
            return value
        try:
            return value.astimezone(UTC)
        except OverflowError:  # year 1 east of UTC is year 0: left as given for the CHECK constraint to refuse
            return value


def bounded(field: str, nullable: bool = False) -> models.Q:
    """The CHECK constraint's condition for one column."""
    inside = models.Q(**{f"{field}__gte": EARLIEST, f"{field}__lte": LATEST})
    return models.Q(**{f"{field}__isnull": True}) | inside if nullable else inside
