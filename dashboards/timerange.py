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


def up_to_second(ts: datetime) -> datetime:
    """A time rounded up to its second: a link's `to` that holds the poll read in that second (a run's last)."""
    return ts if not ts.microsecond else ts.replace(microsecond=0) + timedelta(seconds=1)


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
        raise BadTime(out_of_range(text, name)) from None
    except ValueError:
        try:
            ts = datetime.fromisoformat(text.strip().replace(" ", "T", 1))
        except ValueError:
            raise BadTime(f"{name}={text!r} is not an ISO 8601 time such as 2026-01-31T12:00:00Z") from None
    if ts.tzinfo is None:
        return ts.replace(tzinfo=UTC)
    try:
        return ts.astimezone(UTC)
    except OverflowError:  # 0001-01-01T00:00+01:00 is in year 0 in UTC
        raise BadTime(out_of_range(text, name)) from None


def out_of_range(text: str, name: str) -> str:
    return f"{name}={text!r} is not a time this tool can hold (years 1-9999 in UTC)"


def parse_time_lenient(text: str | None) -> datetime | None:
    """parse_time_strict, with None for a missing or unreadable time: for page URLs that fall back."""
    try:
        return parse_time_strict(text, "time")
    except BadTime:
        return None


# Older than the hour rollups' retention (730 days by default) no data exists;
# beyond tomorrow none can. A range reaching further is cut to these bounds.
OLDEST = timedelta(days=800)
NEWEST = timedelta(days=1)


def read_range(get: QueryDict, now: datetime, default: str = DEFAULT_PRESET) -> tuple[TimeRange, str | None]:
    """The range asked for, and what was wrong with it (said on the page, never silently replaced).

    from alone ends now; to alone ends a range of the preset's length (range=, else the default).
    """
    raw_from, raw_to = (get.get("from") or "").strip(), (get.get("to") or "").strip()
    start, end = parse_time_lenient(raw_from), parse_time_lenient(raw_to)
    bad = [f"{name}={raw!r} is not a time such as 2026-01-31T12:00"
           for name, raw, ts in (("from", raw_from, start), ("to", raw_to, end)) if raw and ts is None]
    preset = get.get("range") or default
    if preset not in PRESETS:
        bad.append(f"range={preset!r} is not one of {', '.join(PRESETS)}")
        preset = default
    if not bad and start and not end and start > now:
        tr = TimeRange(now - PRESETS[default], now, default)
        return tr, (f"from={raw_from!r} is in the future and no 'to' is given: nothing to show there,"
                    f" showing the {tr.label} instead.")
    if not bad and start is None and end is not None:
        start = end - PRESETS[preset] if end > now - OLDEST else end  # no overflow near year 1
    if not bad and start is not None:
        return _fixed(start, end or now, now, default, swapped=bool(end and end < start))
    tr = TimeRange(now - PRESETS[preset], now, preset)
    return tr, (f"{'; '.join(bad)}: showing the {tr.label} instead." if bad else None)


def _fixed(start: datetime, end: datetime, now: datetime, default: str, swapped: bool) -> tuple[TimeRange, str | None]:
    """A from/to range: swapped if reversed, cut to the time data can exist in, each said."""
    notes = []
    if swapped:
        start, end = end, start
        notes.append("'to' was before 'from': the two are swapped")
    lo, hi = now - OLDEST, now + NEWEST
    if end <= lo or start >= hi:
        tr = TimeRange(now - PRESETS[default], now, default)
        where = f"older than {OLDEST.days} days (no data is kept that long)" if end <= lo else "after tomorrow"
        notes.append(f"the range {iso_param(start)} → {iso_param(end)} is {where}")
        note = "; ".join(notes)
        return tr, f"{note[:1].upper() + note[1:]}: nothing to show there, showing the {tr.label} instead."
    if start < lo or end > hi:
        start, end = max(start, lo), min(end, hi)
        notes.append(f"the range is cut to {iso_param(start)} → {iso_param(end)} (no data can exist outside)")
    if end <= start:
        tr = TimeRange(now - PRESETS[default], now, default)
        return tr, f"'from' is not before 'to': nothing to show there, showing the {tr.label} instead."
    note = "; ".join(notes)
    return TimeRange(start, end), (note[:1].upper() + note[1:] + ".") if notes else None


def from_query(get: QueryDict, now: datetime, default: str = DEFAULT_PRESET) -> TimeRange:
    """from/to win over a preset; see read_range for what is wrong with a range."""
    return read_range(get, now, default)[0]


def max_points(get: QueryDict) -> int:
    """The chart's pixel width, sent by the page, bounds the points asked of the store."""
    try:
        width = int(get.get("w", DEFAULT_POINTS))
    except ValueError:
        width = DEFAULT_POINTS
    return max(MIN_POINTS, min(MAX_POINTS, width))


def read_points(get: QueryDict) -> tuple[int, str | None]:
    """max_points, and what was wrong with w (said on pages that draw a chart; max_points stays silent for the rest)."""
    points, raw = max_points(get), (get.get("w") or "").strip()
    if not raw:
        return points, None  # absent or empty: the page's script had no width to send
    try:
        width = int(raw)
    except ValueError:
        return points, f"w={raw!r} is not a chart width in whole pixels: drawing at most {points:,} points instead."
    if width != points:
        return points, (f"w={raw!r} is outside the chart widths {MIN_POINTS}-{MAX_POINTS:,} pixels:"
                        f" drawing at most {points:,} points instead.")
    return points, None
