"""Tiny series for the pure-function tests (shaped like store.query.Series)."""

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

T0 = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)


@dataclass
class Pts:
    ts: list = field(default_factory=list)
    values: list = field(default_factory=list)


def every(seconds: int, values: list, start: datetime = T0) -> Pts:
    return Pts([start + timedelta(seconds=i * seconds) for i in range(len(values))], list(values))
