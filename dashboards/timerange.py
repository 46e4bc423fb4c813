"""The time range of a page, from its query string: a live preset or a fixed from/to."""

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.http import QueryDict

PRESETS = {
    "15m": timedelta(minutes=15), "1h": timedelta(hours=1), "6h": timedelta(hours=6),
    "24h": timedelta(hours=24), "7d": timedelta(days=7),
}
DEFAULT_PRESET = "1h"
DEFAULT_POINTS = 1200  # about the plot width of a laptop screen
MIN_POINTS, MAX_POINTS = 100, 2400


@dataclass(frozen=True)
class TimeRange:
    start: datetime
    end: datetime
    preset: str | None = None  # set for live ranges ("last 1h"), which auto-refresh

    @property
    def live(self) -> bool:
        return self.preset is not None

    @property
    def seconds(self) -> float:
        return (self.end - self.start).total_seconds()

    def params(self) -> dict[str, str]:
        """The query-string form, for links that keep this view."""
        if self.preset:
            return {"range": self.preset}
        return {"from": iso_param(self.start), "to": iso_param(self.end)}

    @property
    def label(self) -> str:
        if self.preset:
            return f"last {self.preset} (UTC)"
        return f"{iso_param(self.start).replace('T', ' ')} → {iso_param(self.end).replace('T', ' ')} UTC"


def iso_param(ts: datetime) -> str:
    return ts.astimezone(UTC).replace(tzinfo=None).isoformat(timespec="seconds")


class BadTime(ValueError):
    """A time the user must fix; the message says which parameter and how."""


def parse_time_strict(text: str | None, name: str) -> datetime:
    """ISO 8601 (naive means UTC; a space for the T, as Plotly's zoom gives it) or Unix seconds.

    Raises BadTime naming the parameter: for the CSV export and the API, which answer 400.
    """
    if not text:
        raise BadTime(f"{name} is missing: give an ISO 8601 time such as 2026-01-31T12:00:00Z")
    try:
        ts = datetime.fromtimestamp(float(text), UTC)
    except (OverflowError, OSError):
        raise BadTime(f"{name}={text!r} is not a time this tool can hold (years 1-9999)") from None
    except ValueError:
        try:
            ts = datetime.fromisoformat(text.strip().replace(" ", "T", 1))
        except ValueError:
            raise BadTime(f"{name}={text!r} is not an ISO 8601 time such as 2026-01-31T12:00:00Z") from None
    return ts.replace(tzinfo=UTC) if ts.tzinfo is None else ts.astimezone(UTC)


def parse_time_lenient(text: str | None) -> datetime | None:
    """parse_time_strict, with None for a missing or unreadable time: for page URLs that fall back."""
    try:
        return parse_time_strict(text, "time")
    except BadTime:
        return None


def from_query(get: QueryDict, now: datetime, default: str = DEFAULT_PRESET) -> TimeRange:
    """from/to win over a preset; anything unreadable falls back to the default preset."""
    start, end = parse_time_lenient(get.get("from")), parse_time_lenient(get.get("to"))
    if start and end and end > start:
        return TimeRange(start, end)
    if start and not end and start < now:
        return TimeRange(start, now)
    preset = get.get("range") if get.get("range") in PRESETS else default
    return TimeRange(now - PRESETS[preset], now, preset)


def max_points(get: QueryDict) -> int:
    """The chart's pixel width, sent by the page, bounds the points asked of the store."""
    try:
        width = int(get.get("w", DEFAULT_POINTS))
    except ValueError:
        width = DEFAULT_POINTS
    return max(MIN_POINTS, min(MAX_POINTS, width))
