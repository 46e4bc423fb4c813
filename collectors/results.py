"""What a poll got: per source (ok, error, sample) and per server; plain data, no I/O."""

from dataclasses import dataclass, field
from datetime import datetime

from collectors import delta
from collectors.connection import ServerInfo
from collectors.status import OK, UNAVAILABLE
from store.sample import Sample


@dataclass
class SourceResult:
    name: str
    status: str
    duration_ms: float = 0.0
    error: str = ""
    note: str = ""
    reset: str = ""  # why this reading carries no deltas
    raw: delta.RawReading | None = None  # the reading itself, for a collection file (collectors.collect_format)
    sample: Sample | None = None
    extra: dict = field(default_factory=dict)  # what the source read beside its values (Reading.extra)

    @property
    def ok(self) -> bool:
        return self.status == OK

    @property
    def unavailable(self) -> bool:
        return self.status in UNAVAILABLE

    def health(self, at: str) -> dict:
        """Its entry in the server's health row; at: when the poll started, as ISO text (one for every source)."""
        entry = {"status": self.status, "ok": self.ok, "error": self.error,
                 "duration_ms": round(self.duration_ms, 3), "at": at}
        if self.note:
            entry["note"] = self.note
        if self.ok:
            entry["worked"] = True  # kept by the health upsert (collectors.record) while later polls fail
        return entry


@dataclass
class PollResult:
    server_id: int
    server_name: str
    started_at: datetime
    due_at: datetime | None = None
    duration_ms: float = 0.0
    connect_error: str = ""
    connected_now: bool = False  # this poll opened a new connection
    info: ServerInfo | None = None
    sources: list[SourceResult] = field(default_factory=list)
    skipped: str = ""  # not polled at all (another poll of this server is running, or nothing due)
    snapshots: dict[str, delta.Snapshot] = field(default_factory=dict)  # to compare the next poll with
    attempts: dict[str, float] = field(default_factory=dict)  # when each source ran
    # Sources this server has nothing for (no node_exporter URL): their last health entry is forgotten.
    unconfigured: list[str] = field(default_factory=list)

    @property
    def samples(self) -> list[Sample]:
        return [s.sample for s in self.sources if s.sample is not None]

    @property
    def ok(self) -> bool:
        """A poll fails when it reaches nothing: no connection, or every source that ran failed."""
        if self.connect_error:
            return False
        ran = [s for s in self.sources if not s.unavailable]
        return not ran or any(s.ok for s in ran)

    @property
    def error(self) -> str:
        if self.connect_error:
            return self.connect_error
        return "; ".join(s.error for s in self.sources if not s.ok and not s.unavailable)

    @property
    def lag_ms(self) -> float | None:
        if self.due_at is None:
            return None
        return max(0.0, (self.started_at - self.due_at).total_seconds() * 1000)
