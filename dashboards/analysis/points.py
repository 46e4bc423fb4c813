"""A chart's line as the pages hand it around: times and values, None at holes."""

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol


class ChartPoints(Protocol):
    """A series as the store returns it (store.query.Series has these); read-only, so frozen ones fit."""

    @property
    def ts(self) -> Sequence[datetime]: ...

    @property
    def values(self) -> Sequence[float | None]: ...
