"""Readings a layer above adds to the purge-lag e-mails: the dashboards' purge verdict.

Alerts sit below the dashboards, which compute the verdict (the history length's current segment,
its holder, purge's pace): the dashboards register their reader here when the app is ready.
"""

from collections.abc import Callable
from datetime import datetime

PurgeReader = Callable[[int, datetime, float], str]
_READERS: list[PurgeReader] = []


def register_purge_reader(reader: PurgeReader) -> None:
    if reader not in _READERS:
        _READERS.append(reader)


def purge_reading(server_id: int, at: datetime, threshold: float) -> str:
    """The verdict sentence on the server's purge lag at `at` ("" when no reader is registered)."""
    return next((text for text in (reader(server_id, at, threshold) for reader in _READERS) if text), "")
