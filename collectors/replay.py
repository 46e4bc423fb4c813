"""Loading a collection file: its raw readings replayed through the delta engine into the store, as if polled.

The whole file is read and checked before anything is written, then everything (the server row,
the samples, the holders of the oldest transaction, runs and annotations) is written in one
transaction: a file that cannot be loaded stores nothing. Loading a file again stores nothing
new (the store keeps one sample per server, source and poll time; runs and annotations are
matched, holders of the file's window replaced).
"""

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime

from django.core.exceptions import ValidationError
from django.db import DataError, transaction

from collectors import collect_file, collect_runs, delta, holders, registry, statement_record
from collectors.collect_format import BadRecord, reading_of
from collectors.collect_marks import recorded_mark_problem
from collectors.collect_runs import MarkSeen
from collectors.delta import RawReading, Snapshot
from collectors.models import TrxHolder
from collectors.outcome import sample_of
from collectors.sources.oldest_trx import NAME as OLDEST_TRX
from collectors.sources.statements import NAME as STATEMENTS
from servers.models import Annotation, Run, Server
from servers.time_bounds import BOUNDS, EARLIEST, LATEST
from store import catalog, config, partitions
from store import statements as statement_store
from store.ingest import write_now
from store.read_samples import poll_times
from store.sample import Sample

WRITE_CHUNK = 2000  # samples per COPY: a day's file does not become one statement in memory
DIGEST_CHUNK = 20_000  # statement digest rows per write (a hundred reads of 200 digests)


class LoadError(Exception):
    """Why a file was not loaded (nothing of it was stored)."""


@dataclass
class Plan:
    """What a file holds, checked in a first pass: its polls are read again while they are stored."""

    header: dict
    good_bytes: int = 0
    polls: int = 0
    failed: int = 0
    first: float | None = None
    last: float | None = None
    marks: list[MarkSeen] = field(default_factory=list)
    collection: int = 0  # the collection processes that wrote the file so far, less one
    info: dict | None = None
    ended: bool = False
    note: str = ""


@dataclass
class LoadReport:
    server: Server
    polls: int
    failed_polls: int
    samples: int
    new: int  # not stored by an earlier load
    first: datetime | None
    last: datetime | None
    runs: list[str]
    annotations: int
    ended: bool
    note: str = ""
    digest_rows: int = 0  # statement digest rows (collectors.statement_record) stored, not by an earlier load


    def lines(self) -> list[str]:
        span = f"{self.first:%Y-%m-%d %H:%M:%S} to {self.last:%H:%M:%S} UTC" if self.first else "no polls"
        again = "" if self.new == self.samples else f", {self.new} of them new (an earlier load stored the others)"
        out = [f"loaded into server {self.server.name!r}: {self.polls} polls ({self.failed_polls} failed), "
               f"{span}, {self.samples} samples{again}, {self.digest_rows} statement digest rows stored",
               f"runs: {', '.join(self.runs) or 'none'}; annotations: {self.annotations}"]
        if not self.ended:
            out.append("the collection has no end record: it was killed or is still running; "
                       "every reading it wrote was loaded")
        if self.note:
            out.append(self.note)
        return out


def plan(data: bytes, source: str, partial: bool = False) -> Plan:
    """Every record of the file decoded once and checked; collect_file.CollectionFileError (or a TruncatedFile
    unless partial) on the first fault."""
    found = Plan({})

    def visit(record: dict, number: int) -> None:
        try:
            add_record(found, record)
        except (BadRecord, KeyError, TypeError, ValueError) as exc:
            raise collect_file.CorruptFile(f"{source}: record {number} ({record.get('type')}) is damaged: {exc}. "
                                           "Nothing was stored.") from None

    try:
        contents = collect_file.survey(data, source, visit)
    except collect_file.TruncatedFile as cut:
        if not partial:
            raise
        contents = cut.complete
        found.note = (f"the file was cut off inside its last record at byte {contents.good_bytes}: "
                      f"the {contents.count} complete records before it were loaded (--partial)")
    found.header, found.good_bytes, found.ended = contents.header, contents.good_bytes, contents.ended
    refuse_unprintable(found.header, source)
    return found


def refuse_unprintable(header: dict, source: str) -> None:
    """The header's host, socket and user as a new server would keep them, checked by their fields' validators
    (servers.names.Printable, as the server form and import_run check them): CorruptFile naming the field."""
    theirs = header.get("server", {})
    if not isinstance(theirs, dict):
        return  # server_for refuses it as damaged
    for name, text in server_texts(theirs).items():
        try:
            Server._meta.get_field(name).run_validators(text)
        except ValidationError as exc:
            raise collect_file.CorruptFile(f"{source}: its header's server {name} is damaged: "
                                           f"{' '.join(exc.messages)} Nothing was stored.") from None


def server_texts(theirs: dict) -> dict[str, str]:
    """The header's texts a new server keeps, as it keeps them (the user cut to its field's length)."""
    return {"host": str(theirs.get("host") or ""), "socket": str(theirs.get("socket") or ""),
            "user": str(theirs.get("user") or "")[:80]}


def add_record(found: Plan, record: dict) -> None:
    kind = record["type"]
    if kind == "poll":
        got = readings(record)
        when = float(record["at"])
        found.polls += 1
        # As a poll's result says ok: no connection, or every source that ran failed.
        found.failed += bool(record.get("connect_error")) or (
            not got and any(not f.get("unavailable") for f in record.get("failed", ())))
        found.first = when if found.first is None else found.first
        found.last = when
        found.info = record.get("info") or found.info
    elif kind == "mark":
        mark_time(float(record["at"]))
        if problem := recorded_mark_problem(record):
            raise BadRecord(problem)
        found.collection += record.get("resumed") is True  # the first mark of a collection resumed into the file
        found.marks.append(MarkSeen(record, found.last, found.collection))
    elif kind == "end":
        found.collection += 1  # what follows was written by a collection resumed into the file


def mark_time(epoch: float) -> None:
    """A mark becomes a run's start or end or an annotation, whose times the database keeps within
    servers.time_bounds: one outside (a script's typo to the collector's API) would fail the load there."""
    if not EARLIEST.timestamp() <= epoch <= LATEST.timestamp():  # False for nan too
        shown = at(epoch).isoformat() if -62135596800 <= epoch < 253402300800 else repr(epoch)
        raise BadRecord(f"its time {shown} is not {BOUNDS}")


def readings(record: dict) -> list[tuple[str, RawReading]]:
    return [(str(entry["source"]), reading_of(entry)) for entry in record["readings"]]


def polls(data: bytes, found: Plan) -> Iterator[tuple[float, list[tuple[str, RawReading]]]]:
    """The polls again, in order, from the part of the file the plan checked."""
    for record, _end in collect_file.records(memoryview(data)[:found.good_bytes]):
        if record["type"] == "poll":
            yield float(record["at"]), readings(record)


def load(data: bytes, name: str, source: str = "the file", partial: bool = False) -> LoadReport:
    """Store a collection file's readings as the server `name` (created, or the one an earlier load made)."""
    name = name.strip()
    if not name or len(name) > Server._meta.get_field("name").max_length or not name.isprintable():
        raise LoadError("--as: a server name of 1 to 100 printable characters is needed")
    found = plan(data, source, partial)
    try:
        with transaction.atomic():
            server, existed = server_for(name, found)
            if found.first is not None and found.last is not None:  # the window's holders are written again
                TrxHolder.objects.filter(server=server, seen_at__gte=at(found.first),
                                         seen_at__lte=at(found.last)).delete()
            digests = Digests(server.id)
            samples, new = store_polls(server, polls(data, found), existed, digests)
            runs, annotations = store_marks(server, found)
    except (KeyError, TypeError, ValueError, AttributeError, ArithmeticError, DataError) as exc:
        forget()
        raise LoadError(f"{source}: a reading could not be replayed ({type(exc).__name__}: {exc}): the file is "
                        "damaged. Nothing was stored.") from None
    except Exception:
        forget()
        raise
    first = at(found.first) if found.first is not None else None
    last = at(found.last) if found.last is not None else None
    if first is not None and first < datetime.now(UTC) - config.raw_retention():
        found.note = "; ".join(filter(None, (found.note, retention_note(first))))
    return LoadReport(server, found.polls, found.failed, samples, new, first, last,
                      runs, annotations, found.ended, found.note, digests.written)


def retention_note(first: datetime) -> str:
    days = config.raw_retention().days
    return (f"polls before {datetime.now(UTC) - config.raw_retention():%Y-%m-%d %H:%M} UTC are older than the "
            f"full-resolution retention ({days} days, STORE_RAW_RETENTION_DAYS): the next maintenance keeps only "
            "their 1-minute and 1-hour rollups")


def forget() -> None:
    partitions.forget()  # partitions and layouts made by the rolled-back transaction are gone
    catalog.forget()


def at(epoch: float) -> datetime:
    return datetime.fromtimestamp(epoch, UTC)


def server_for(name: str, found: Plan) -> tuple[Server, bool]:
    """The server the readings go to: a new one (not polled here), or the one of that name at the same address."""
    theirs = found.header.get("server", {})
    address = str(theirs.get("address", ""))
    existing = Server.objects.filter(name=name).first()
    if existing is not None:
        if existing.address != address:
            raise LoadError(f"a server named {name!r} exists here at {existing.address}, and this file was "
                            f"collected from {address}: load it --as another name")
        server, existed = existing, True
    else:
        existed = False
        texts = server_texts(theirs)
        host, socket = texts["host"], texts["socket"]
        server = Server(name=name, host=host or ("" if socket else "collected"), port=int(theirs.get("port") or 3306),
                        socket=socket, user=texts["user"], enabled=False,
                        poll_interval=min(3600, max(1, int(found.header.get("interval") or 10))),
                        statements_interval=min(3600, max(10, int(theirs.get("statements_interval") or 60))))
    info = found.info or {}
    server.flavor, server.version = str(info.get("flavor", server.flavor))[:10], str(info.get("version", ""))[:100]
    server.save()
    return server, existed


class Digests:
    """The statement digest rows of the replayed reads, written to their table a chunk at a time."""

    def __init__(self, server_id: int):
        self.server_id, self.written = server_id, 0
        self.rows: list[statement_store.StatementRow] = []
        self.texts: dict[tuple[str, str], tuple[str, str]] = {}

    def add(self, raw: RawReading) -> None:
        statement_record.add_interval(self.server_id, raw.reading.extra.get("interval"), self.rows, self.texts)
        if len(self.rows) >= DIGEST_CHUNK:
            self.flush()

    def flush(self) -> None:
        self.written += statement_store.write(self.rows, self.texts)  # a read stored already is kept
        self.rows, self.texts = [], {}


def compute_of(source: str):
    """The source's own delta computation (the statement digests'), else the engine's."""
    found = registry.SOURCES.get(source)
    return found.compute if found is not None and found.compute else delta.compute


def store_polls(server: Server, found: Iterator, existed: bool, digests: Digests) -> tuple[int, int]:
    """Replay every reading through the delta engine in collection order; write the samples, holders and digests.

    Returns the samples and how many of them the server did not hold yet (an earlier load stored the others).
    """
    previous: dict[str, Snapshot] = {}
    pending: list[Sample] = []
    written = new = 0
    holder_open: bool | None = None  # unknown until the first reading of oldest_trx
    for poll_at, got in found:
        seen: tuple[datetime, dict | None] | None = None  # this poll's oldest transaction, when read
        for source, raw in got:
            _change, snapshot, sample = sample_of(server.id, source, raw.reading, previous.get(source),
                                                  raw.read_at, raw.boot, compute_of(source))
            if raw.next_boot is not None:
                snapshot.boot = raw.next_boot
            previous[source] = snapshot
            if sample is not None:
                pending.append(sample)
            if source == OLDEST_TRX and "holder" in raw.reading.extra:  # as holders.readings() takes it
                seen = (sample.ts if sample is not None else at(poll_at),
                        holders.worth_keeping(raw.reading.extra["holder"]))
            if source == STATEMENTS:
                digests.add(raw)
        holder_open = replay_holders(server, seen, holder_open)
        if len(pending) >= WRITE_CHUNK:
            new += write(server, pending, existed)
            written, pending = written + len(pending), []
    if pending:
        new += write(server, pending, existed)
    digests.flush()
    return written + len(pending), new


def replay_holders(server: Server, seen: tuple[datetime, dict | None] | None, holder_open: bool | None,
                   ) -> bool | None:
    """The oldest transaction's holder rows as the worker's record() keeps them; whether one is open after.

    A poll that saw no holder worth keeping, with none open, changes nothing: it is not asked (one query a
    poll was most of a load's time).
    """
    if seen is None:
        return holder_open
    if seen[1] is None and holder_open is False:
        return False
    holders.apply({server.id: seen})
    return seen[1] is not None


def write(server: Server, batch: list[Sample], existed: bool) -> int:
    """Store a batch; the number the server did not hold before."""
    known = set()
    if existed:
        first, last = min(s.ts for s in batch), max(s.ts for s in batch)
        known = poll_times(server.id, first, last)
        refuse_polls_of_its_own(server, batch, known)
    write_now(batch)
    return sum((s.source, s.ts) not in known for s in batch)


def refuse_polls_of_its_own(server: Server, batch: list[Sample], known: set[tuple[str, datetime]]) -> None:
    if first := polls_of_its_own(batch, known):
        raise LoadError(f"{server.name!r} holds polls of its own from {first:%Y-%m-%d %H:%M:%S} UTC on, between "
                        "the file's (it is polled here, or another collection was loaded into it): kept beside "
                        "them, the file's would count every counter of that time twice. Nothing was stored: load "
                        "the file --as another name")


def polls_of_its_own(batch: list[Sample], known: set[tuple[str, datetime]]) -> datetime | None:
    """The first sample the server holds between a file's own of a source that the file does not have: the
    worker's (the server is polled here) or another file's. Kept beside the file's, every counter there would
    count twice. Per source: a source's samples are in time order through a file, so a batch's cut leaves none out.
    """
    spans: dict[str, tuple[datetime, datetime]] = {}
    for sample in batch:
        low, high = spans.get(sample.source, (sample.ts, sample.ts))
        spans[sample.source] = (min(low, sample.ts), max(high, sample.ts))
    theirs = [ts for source, ts in known - {(s.source, s.ts) for s in batch}
              if source in spans and spans[source][0] <= ts <= spans[source][1]]
    return min(theirs, default=None)


def store_marks(server: Server, found: Plan) -> tuple[list[str], int]:
    """Runs from their start and end marks (collectors.collect_runs; a run never ended ends at the last poll),
    and the annotations."""
    annotations = 0
    for seen in found.marks:
        entry = seen.record
        if entry.get("annotate") and not entry.get("run_end"):
            Annotation.objects.get_or_create(server=server, at=at(float(entry["at"])),
                                             text=str(entry["annotate"])[:500])
            annotations += 1
    runs = collect_runs.runs_of(found.marks)
    for span in runs:
        end = span.end if span.end is not None and span.end >= span.start else found.last
        run, _ = Run.objects.get_or_create(server=server, name=span.name, started_at=at(span.start))
        run.ended_at = at(end) if end is not None and end >= span.start else None
        for key, value in span.fields.items():
            setattr(run, key, value)
        run.save()
    return [span.name for span in runs], annotations
