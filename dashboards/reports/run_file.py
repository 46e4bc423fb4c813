"""A run (or a sweep) as one file for another installation: its server's series and statement digests over
its window, runs, annotations, holders of the oldest transaction, and its report figures as they were
(docs/collect.md).

The file is gzip-compressed JSON. Import writes the same samples into the other store in one
transaction (matching a server of the same name and address, or making one, not polled), so the
report, compare and scalability pages compute the same figures there; importing again stores
nothing new.
"""

import gzip
import json
import zlib
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta

from django.core.exceptions import ValidationError
from django.db import DataError, IntegrityError, transaction

from collectors.models import TrxHolder
from collectors.replay import polls_of_its_own
from dashboards import per_trx_reads, reads
from dashboards.analysis.step_window import Window
from dashboards.reports.summary import summarize_run
from dashboards.storable import first_unstorable
from servers.models import Annotation, Run, Server
from servers.time_bounds import BOUNDS, out_of_bounds
from store import catalog, partitions, statement_reads
from store import statements as statement_store
from store.ingest import write_now
from store.read_samples import poll_times
from store.read_samples import samples as stored_samples
from store.sample import Sample

MAGIC = "steadystate-run"
FORMAT_VERSION = 1
WRITE_CHUNK = 2000
SERVER_FIELDS = ("name", "host", "port", "socket", "user", "tags", "poll_interval", "node_exporter_url",
                 "flavor", "version", "tls_mode")  # never the password, nor this host's TLS file paths
RUN_FIELDS = ("name", "notes", "warmup_seconds", "concurrency", "sweep", "label", "command", "tool_summary")
HOLDER_FIELDS = ("thread_id", "trx_key", "user", "host", "isolation", "state", "statement", "idle")
STATEMENT_READS_CHUNK = 200  # digest reads per write (about 200 digests each)
TOP_STATEMENTS = 15  # the report's top statements recorded with each run, for reference
MAX_BYTES = 2 * 1024**3  # a decompressed file larger than this is refused (a run of a day at 10 s is ~100 MB)


class RunFileError(Exception):
    """The file cannot be imported (nothing was stored), or the runs cannot be exported: in words for the user."""


def margin(server: Server) -> timedelta:
    """Read this much around the runs: the poll before the first one inside (its delta's start) and after."""
    return timedelta(seconds=max(60, 3 * server.poll_interval))


def export(runs: list[Run]) -> bytes:
    """The runs (of one or more servers) as one file."""
    if not runs:
        raise RunFileError("no run to export")
    by_server: dict[int, list[Run]] = {}
    for run in runs:
        by_server.setdefault(run.server_id, []).append(run)
    document = {"format": MAGIC, "version": FORMAT_VERSION, "exported_at": stamp(datetime.now(UTC)),
                "servers": [server_part(group) for group in by_server.values()]}
    return gzip.compress(json.dumps(document, separators=(",", ":"), allow_nan=False).encode(), mtime=0)


def server_part(runs: list[Run]) -> dict:
    server = runs[0].server
    start = min(r.started_at for r in runs) - margin(server)
    end = max(r.ended_at or datetime.now(UTC) for r in runs) + margin(server)
    notes = Annotation.objects.filter(server=server, at__gte=start, at__lte=end).select_related("run")
    holders = TrxHolder.objects.filter(server=server, started_at__lte=end, seen_at__gte=start)
    return {
        "server": {name: getattr(server, name) for name in SERVER_FIELDS},
        "window": [stamp(start), stamp(end)],
        "runs": [run_part(r) for r in runs],
        "annotations": [{"at": stamp(a.at), "text": a.text, "run": a.run.name if a.run else None} for a in notes],
        "holders": [{**{f: getattr(h, f) for f in HOLDER_FIELDS}, "started_at": stamp(h.started_at),
                     "seen_at": stamp(h.seen_at), "ended_at": stamp(h.ended_at) if h.ended_at else None}
                    for h in holders],
        "samples": [{"source": s.source, "ts": stamp(s.ts), "interval": s.interval, "values": s.values,
                     "counters": sorted(s.counters)} for s in stored_samples(server.id, start, end)],
        "statements": statements_part(server.id, start, end),
    }


def statements_part(server_id: int, start: datetime, end: datetime) -> dict:
    """The digest reads of the window as stored: each digest's text once, each read's rows by text index."""
    found, texts = statement_reads.stored_reads(server_id, start, end)
    keys = sorted(texts)
    index = {key: i for i, key in enumerate(keys)}
    return {"texts": [[*key, *texts[key]] for key in keys],
            "reads": [[stamp(r.ts), r.interval_ms, [[index[key], *values] for key, values in r.rows]] for r in found]}


def run_part(run: Run) -> dict:
    summary = summarize_run(run)
    waits = per_trx_reads.run_figures(run.server_id, Window(summary.start, summary.end))[0]
    return {**{name: getattr(run, name) for name in RUN_FIELDS},
            "started_at": stamp(run.started_at), "ended_at": stamp(run.ended_at) if run.ended_at else None,
            "report": {"tps": asdict(summary.tps), "qps": summary.qps, "transactions": summary.transactions,
                       "max_history": summary.max_history,
                       "top_waits": [[w.event, w.count, w.time_ps] for w in waits[:15]],
                       "top_statements": [[t.row.schema, t.row.digest, t.row.sums["execs"], t.row.sums["time_ps"]]
                                          for t in reads.run_top_statements(run, TOP_STATEMENTS, summary.warmup)]}}


def stamp(t: datetime) -> str:
    return t.astimezone(UTC).isoformat()


def parse_time(text) -> datetime:
    t = datetime.fromisoformat(str(text))
    if t.tzinfo is None or out_of_bounds(t):  # the bounds the database's CHECK constraints hold runs to
        raise ValueError(f"time {text!r} has no offset or is not {BOUNDS}")
    return t


def read(data: bytes, source: str = "the file") -> dict:
    """The document, checked for its format; RunFileError with what is wrong."""
    unzip = zlib.decompressobj(31)
    try:
        text = unzip.decompress(data, MAX_BYTES)
        if not unzip.eof:
            raise ValueError("it is larger than 2 GB unpacked" if unzip.unconsumed_tail else "it stops early")
        document = json.loads(text)
    except (zlib.error, ValueError, UnicodeDecodeError) as exc:
        raise RunFileError(f"{source} is not a SteadyState run file, or it is damaged or truncated ({exc}). "
                           "Nothing was stored.") from None
    if not isinstance(document, dict) or document.get("format") != MAGIC:
        raise RunFileError(f"{source} is not a SteadyState run file (no {MAGIC} format). Nothing was stored.")
    if problem := first_unstorable(document):  # else its error, quoting the text, could not even be shown
        raise RunFileError(f"{source} is damaged: a text in it {problem}. Nothing was stored.")
    version = document.get("version")
    if not isinstance(version, int) or version > FORMAT_VERSION:
        raise RunFileError(f"{source} is in run file format version {version}, newer than this SteadyState "
                           f"reads (version {FORMAT_VERSION}): upgrade it. Nothing was stored.")
    return document


@dataclass
class Imported:
    servers: list[Server]
    runs: list[Run]
    samples: int

    def lines(self) -> list[str]:
        return [f"imported {len(self.runs)} runs of {', '.join(s.name for s in self.servers)} "
                f"({self.samples} samples): " + ", ".join(f"{r.name} (id {r.id})" for r in self.runs)]


def import_file(data: bytes, source: str = "the file", rename: str = "") -> Imported:
    """Store a run file's servers, series, runs, annotations and holders; nothing if any of it is wrong."""
    document = read(data, source)
    parts = document.get("servers")
    if not isinstance(parts, list) or not parts or (rename and len(parts) > 1):
        raise RunFileError(f"{source}: no servers in it, or --as given for a file of several servers")
    try:
        with transaction.atomic():
            done = [import_server(part, rename) for part in parts]
    # A null text or an infinite count passes full_clean: the database or int() refuses it.
    except (KeyError, TypeError, ValueError, AttributeError, OverflowError, ValidationError, DataError,
            IntegrityError) as exc:
        forget()
        raise RunFileError(f"{source} is damaged ({type(exc).__name__}: {exc}). Nothing was stored.") from None
    except Exception:
        forget()
        raise
    return Imported([d[0] for d in done], [r for d in done for r in d[1]], sum(d[2] for d in done))


def forget() -> None:
    partitions.forget()  # made by the rolled-back transaction
    catalog.forget()


def import_server(part: dict, rename: str) -> tuple[Server, list[Run], int]:
    server = server_for(part["server"], rename)
    written = write(server, part["samples"])
    write_statements(server, part.get("statements") or {"texts": [], "reads": []})  # none in older files
    runs = [import_run(server, r) for r in part["runs"]]
    by_name = {r.name: r for r in runs}
    for note in part["annotations"]:
        Annotation.objects.get_or_create(server=server, at=parse_time(note["at"]), text=str(note["text"])[:500],
                                         run=by_name.get(note.get("run")))
    start, end = (parse_time(t) for t in part["window"])
    TrxHolder.objects.filter(server=server, started_at__lte=end, seen_at__gte=start).delete()
    for h in part["holders"]:
        TrxHolder.objects.create(server=server, **{f: h[f] for f in HOLDER_FIELDS},
                                 started_at=parse_time(h["started_at"]), seen_at=parse_time(h["seen_at"]),
                                 ended_at=parse_time(h["ended_at"]) if h["ended_at"] else None)
    return server, runs, written


def server_for(fields: dict, rename: str) -> Server:
    """The server of that name here if at the same address, else a new one (not polled: no password)."""
    name = (rename or str(fields["name"])).strip()[:100]
    if not name or not name.isprintable():
        raise RunFileError(f"server name {name!r}: 1 to 100 printable characters are needed. Nothing was stored.")
    address = fields["socket"] or f"{fields['host']}:{fields['port']}"
    existing = Server.objects.filter(name=name).first()
    if existing is not None:
        if existing.address != address:
            raise RunFileError(f"a server named {name!r} exists here at {existing.address}, and the run was "
                               f"on {address}: import it --as another name. Nothing was stored.")
        return existing
    server = Server(name=name, enabled=False, **{f: fields[f] for f in SERVER_FIELDS if f != "name"})
    server.full_clean(exclude=["password_encrypted"])
    server.save()
    return server


def write(server: Server, entries: list[dict]) -> int:
    batch = []
    for entry in entries:
        batch.append(Sample(server.id, str(entry["source"]), parse_time(entry["ts"]), interval_of(entry["interval"]),
                            dict(entry["values"]),
                            frozenset(entry["counters"])))
        if len(batch) >= WRITE_CHUNK:
            write_batch(server, batch)
            batch = []
    if batch:
        write_batch(server, batch)
    return len(entries)


def write_batch(server: Server, batch: list[Sample]) -> None:
    """Refused where the server has polls of its own among the file's: both kept, each counter would count twice."""
    known = poll_times(server.id, min(s.ts for s in batch), max(s.ts for s in batch))
    if first := polls_of_its_own(batch, known):
        raise RunFileError(f"{server.name!r} holds polls of its own from {first:%Y-%m-%d %H:%M:%S} UTC on, between "
                           "the file's (it is polled here): kept beside them, the file's would count every counter "
                           "of the run twice. Import it --as another name. Nothing was stored.")
    write_now(batch)


MAX_INTERVAL = (2**31 - 1) / 1000  # seconds: the store keeps a sample's interval in milliseconds, a 4-byte integer


def interval_of(value) -> float | None:
    if value is None:
        return None
    seconds = float(value)
    if not 0 <= seconds <= MAX_INTERVAL:  # NaN and the infinities too
        raise ValueError(f"a sample's interval {value!r} is not a number of seconds from 0 to {MAX_INTERVAL:g}")
    return seconds


def write_statements(server: Server, part: dict) -> None:
    """The file's digest reads into this store (a read stored already is kept: importing again adds nothing)."""
    keys = [(str(schema), str(digest)) for schema, digest, _, _ in part["texts"]]
    texts = {key: (str(t[2]), str(t[3])) for key, t in zip(keys, part["texts"], strict=True)}
    found = part["reads"]
    for first in range(0, len(found), STATEMENT_READS_CHUNK):
        rows = [statement_row(server.id, parse_time(ts), checked(interval_ms, 1, 2**31 - 1),
                              keys[checked(digest, 0, len(keys) - 1)], values)
                for ts, interval_ms, entries in found[first:first + STATEMENT_READS_CHUNK]
                for digest, *values in entries]
        statement_store.write(rows, texts)


def statement_row(server_id: int, ts: datetime, interval_ms: int, key: tuple[str, str], values: list
                  ) -> statement_store.StatementRow:
    if len(values) != statement_store.WIDTH:
        raise ValueError(f"a digest row has {len(values)} figures, not {statement_store.WIDTH}")
    counts = tuple(checked(v, -LIMIT, LIMIT) for v in values[:len(statement_store.COUNTERS)])
    max_ps, p95, p99 = values[len(statement_store.COUNTERS):]
    return statement_store.StatementRow(server_id, ts, interval_ms, *key, counts, checked(max_ps, -LIMIT, LIMIT),
                                        None if p95 is None else checked(p95, 0, LIMIT),
                                        None if p99 is None else checked(p99, 0, LIMIT))


LIMIT = 2**62 - 1  # what the store's varints hold (store.statements.encode_read)


def checked(value, low: int, high: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise ValueError(f"{value!r} is not an integer from {low} to {high}")
    return value


def import_run(server: Server, fields: dict) -> Run:
    run, _ = Run.objects.get_or_create(server=server, name=str(fields["name"])[:200],
                                       started_at=parse_time(fields["started_at"]))
    for name in RUN_FIELDS[1:]:
        setattr(run, name, fields[name])
    run.ended_at = parse_time(fields["ended_at"]) if fields["ended_at"] else None
    run.full_clean()
    run.save()
    return run
