"""The watchdog's memory, in a file: when it started, and since when it mailed "blind".

A file under var/ and not Redis or PostgreSQL, because the watchdog must still
mail (once per stall) when either of them is down.
"""

import json
import os
import tempfile
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path

from django.conf import settings


@dataclass
class WatchState:
    started_at: datetime | None = None  # when the watchdog last started: polls get their intervals from then
    blind_since: datetime | None = None  # the stall's start, set once "blind" was mailed, until "polls again" is


def path() -> Path:
    return Path(settings.WATCHDOG_STATE_FILE)


def load() -> WatchState:
    """The stored state; an absent or unreadable file is a fresh state (never an error in a page header)."""
    try:
        raw = json.loads(path().read_text())
        return WatchState(**{k: datetime.fromisoformat(v) if v else None for k, v in raw.items()
                             if k in WatchState.__dataclass_fields__})
    except (OSError, ValueError, TypeError):
        return WatchState()


def save(state: WatchState) -> None:
    """Write atomically (a temporary file renamed over it): a reader never sees half a file."""
    target = path()
    target.parent.mkdir(parents=True, exist_ok=True)
    data = {k: v.isoformat() if v else None for k, v in asdict(state).items()}
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".watchdog-")
    with os.fdopen(fd, "w") as f:
        json.dump(data, f)
    os.replace(tmp, target)


def mark_started(at: datetime) -> WatchState:
    """A (re)start: keep blind_since (a stall mailed before the restart is still one stall)."""
    state = load()
    state.started_at = at
    save(state)
    return state
