"""A run's settings from the var:* readings: the value each had at its start, and what differs between two runs."""

from dataclasses import dataclass
from datetime import datetime

VAR_PREFIX = "var:"


@dataclass(frozen=True)
class Setting:
    name: str  # without the var: prefix
    value: float | None
    changed_during_run: bool = False


@dataclass(frozen=True)
class Change:
    name: str
    before: float | None  # None: not recorded for the previous run
    after: float | None


def settings_at(points: dict[str, list[tuple[datetime, float]]], start: datetime, end: datetime) -> list[Setting]:
    """Each variable's value at the start (or its first reading within the run), from its (time, value) readings."""
    settings = []
    for name, pts in points.items():
        before = [v for t, v in pts if t <= start]
        during = [v for t, v in pts if start < t <= end]
        if not before and not during:
            continue
        value = before[-1] if before else during[0]
        settings.append(Setting(name[len(VAR_PREFIX):], value, any(v != value for v in during)))
    return sorted(settings, key=lambda s: s.name)


def changes(before: list[Setting], after: list[Setting]) -> list[Change]:
    """Variables whose value differs (or that appear on one side only)."""
    old = {s.name: s.value for s in before}
    new = {s.name: s.value for s in after}
    names = sorted(set(old) | set(new))
    return [Change(n, old.get(n), new.get(n)) for n in names if old.get(n) != new.get(n)]
