"""The collection file: a header, then one record per poll or mark, each its own gzip member (docs/collect.md).

Each record is one JSON document and a newline, compressed alone and written with one write()
and an fsync(): a collector killed at any moment leaves every record it finished, and at most a
part of the one it was writing. `zcat FILE` prints the records as JSON lines. gzip's CRC-32 and
length in each member's trailer tell corruption (an error anywhere) from a file that merely
stops inside its last member (TruncatedFile: the records before it are intact).
"""

import gzip
import json
import os
import signal
import threading
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

MAGIC = "steadystate-collection"
FORMAT_VERSION = 2  # 2: the statement digests' raw reads (docs/collect.md); 1 still loads
GZIP_WBITS = 31  # zlib's window bits for one gzip member (header and trailer checked)
CHUNK = 64 * 1024  # bytes fed to zlib at a time: a record is ~10 kB compressed
HELD = (signal.SIGINT, signal.SIGTERM)  # what a record's write finishes before acting on
MAX_RECORD = 256 * 2**20  # unpacked bytes of one record: more is no poll of ours (a decompression bomb)


class CollectionFileError(Exception):
    """The file cannot be loaded; the message says why, in words for the user."""


class NotACollection(CollectionFileError):
    pass


class CorruptFile(CollectionFileError):
    pass


class NewerFormat(CollectionFileError):
    pass


class TruncatedFile(CollectionFileError):
    """The file stops inside its last record (cut while copied, or the collector killed mid-write)."""

    def __init__(self, message: str, complete: "Contents"):
        super().__init__(message)
        self.complete = complete  # what the records before the cut hold


@dataclass
class Contents:
    """What a file holds, surveyed without keeping its records (a day's file is hundreds of MB of readings)."""

    header: dict
    count: int = 0  # records after the header
    good_bytes: int = 0  # where the last complete record ends
    last_type: str = ""
    last_at: float | None = None  # the time of the last record that has one

    @property
    def ended(self) -> bool:
        """The collector stopped cleanly (Ctrl-C, its duration) rather than being killed."""
        return self.last_type == "end"


def encode(record: dict) -> bytes:
    """One record as a gzip member (mtime 0: the same record always gives the same bytes)."""
    text = json.dumps(record, separators=(",", ":"), allow_nan=False) + "\n"
    return gzip.compress(text.encode(), compresslevel=6, mtime=0)


def header(server: dict, interval: int, started_at: float) -> dict:
    return {"type": "header", "format": MAGIC, "version": FORMAT_VERSION, "server": server,
            "interval": interval, "started_at": started_at}


def member_at(view: memoryview, pos: int) -> tuple[bytes, int]:
    """The text of the member starting at pos and where it ends; fed in chunks, so that the rest of
    the file is never copied per record."""
    unzip, parts, cur, size = zlib.decompressobj(GZIP_WBITS), [], pos, 0
    try:
        while not unzip.eof:
            if cur >= len(view):
                raise _Cut(pos)
            chunk = view[cur:cur + CHUNK]
            cur += len(chunk)
            parts.append(unzip.decompress(chunk))
            size += len(parts[-1])
            if size > MAX_RECORD:
                raise CorruptFile(f"record at byte {pos} unpacks to more than {MAX_RECORD // 2**20} MB")
    except zlib.error as exc:
        raise CorruptFile(f"record at byte {pos} is damaged ({exc})") from None
    return b"".join(parts), cur - len(unzip.unused_data)


class _Cut(Exception):
    def __init__(self, pos: int):
        self.pos = pos


def records(data: bytes | memoryview, source: str = "the file") -> Iterator[tuple[dict, int]]:
    """Each record (the header first, checked) and the offset it ends at; CollectionFileError at the first fault.

    A file that stops inside a record raises _Cut there: survey() turns it into TruncatedFile.
    """
    if not data:
        raise NotACollection(f"{source} is empty: not a SteadyState collection file")
    if data[:2] != b"\x1f\x8b":
        raise NotACollection(f"{source} is not a SteadyState collection file (it is not gzip data)")
    view, pos = memoryview(data), 0
    while pos < len(view):
        text, end = member_at(view, pos)
        record = parse(text, end)
        yield (check_header(record, source) if pos == 0 else record), end
        pos = end


def survey(data: bytes, source: str = "the file", visit: Callable[[dict, int], None] | None = None) -> Contents:
    """Every record checked (and handed to visit with its number); TruncatedFile, with what precedes the cut."""
    contents: Contents | None = None
    try:
        for record, end in records(data, source):
            if contents is None:
                contents = Contents(record)
            else:
                contents.count += 1
                if visit is not None:
                    visit(record, contents.count)
                contents.last_type = record["type"]
                contents.last_at = record.get("at", contents.last_at)
            contents.good_bytes = end
    except _Cut as cut:
        if contents is None:
            raise NotACollection(f"{source} stops inside its header: not a complete collection file") from None
        raise TruncatedFile(truncated_message(source, cut.pos, len(data), contents), contents) from None
    if contents is None:  # records() raises first; said for the type checker
        raise NotACollection(f"{source} is empty: not a SteadyState collection file")
    return contents


def truncated_message(source: str, pos: int, size: int, contents: Contents) -> str:
    when = f", the last complete one read at {format_time(contents.last_at)}" if contents.last_at else ""
    return (f"{source} is truncated: it stops {size - pos} bytes into a record at byte {pos} "
            f"({contents.count} complete records before it{when}). Nothing was stored. "
            "If the collector was killed while writing, load the complete records with --partial "
            "(or resume the collection into the same file, which drops the cut record)")


def format_time(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def parse(text: bytes, end: int) -> dict:
    try:
        record = json.loads(text)
    except (ValueError, UnicodeDecodeError):
        raise CorruptFile(f"the record ending at byte {end} is not JSON") from None
    if not isinstance(record, dict) or not isinstance(record.get("type"), str):
        raise CorruptFile(f"the record ending at byte {end} has no type")
    return record


def check_header(record: dict, source: str) -> dict:
    if record.get("type") != "header" or record.get("format") != MAGIC:
        raise NotACollection(f"{source} is gzip data but not a SteadyState collection file (no {MAGIC} header)")
    version = record.get("version")
    if not isinstance(version, int) or version < 1:
        raise CorruptFile(f"{source}: its header states no format version")
    if version > FORMAT_VERSION:
        raise NewerFormat(f"{source} is in collection format version {version}, newer than this SteadyState "
                          f"reads (version {FORMAT_VERSION}): load it with the newer SteadyState that wrote it, "
                          "or upgrade this one. Nothing was stored.")
    return record


@contextmanager
def signals_held() -> Iterator[None]:
    """SIGINT and SIGTERM noted during the block and acted on after it (handlers are the main thread's).

    Not the signal mask: the kernel hands a signal the main thread blocks to another thread of the
    process, and Python then runs the handler in the main thread all the same.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[signal.Signals] = []
    before = {sig: signal.signal(sig, lambda signum, frame: caught.append(signal.Signals(signum))) for sig in HELD}
    try:
        yield
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)
        if caught:
            act_on(caught[0], before[caught[0]])


def act_on(signum: int, handler) -> None:
    if callable(handler):
        handler(signum, None)
    elif handler == signal.SIG_DFL:
        signal.raise_signal(signum)


class Writer:
    """Appends records to a collection file, each made durable before the next poll."""

    def __init__(self, path: Path):
        self.path = path
        self.fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        self.bytes = os.fstat(self.fd).st_size

    def write(self, record: dict, sync: bool = True) -> None:
        data = memoryview(encode(record))
        with signals_held():  # Ctrl-C mid-record would leave a cut record before the end record
            while data:
                written = os.write(self.fd, data)
                data = data[written:]
                self.bytes += written
            if sync:
                os.fsync(self.fd)

    def close(self) -> None:
        os.close(self.fd)


def open_for_collection(path: Path, server: dict, interval: int, started_at: float) -> tuple[Writer, str]:
    """A writer at the end of path (a new file gets its header): what was there is kept, a cut last record dropped.

    Returns the writer and a sentence about the file it found. A file of another server, or a damaged one, is
    left alone (CollectionFileError).
    """
    if not path.exists() or path.stat().st_size == 0:
        writer = Writer(path)
        writer.write(header(server, interval, started_at))
        return writer, f"new file {path}"
    try:
        contents, note = survey(path.read_bytes(), str(path)), ""
    except TruncatedFile as cut:
        contents = cut.complete
        note = f"; its last record was cut off ({path.stat().st_size - contents.good_bytes} bytes) and is dropped"
        os.truncate(path, contents.good_bytes)
    theirs = contents.header.get("server", {})
    if (theirs.get("address"), theirs.get("user")) != (server["address"], server["user"]):
        raise CollectionFileError(f"{path} holds a collection of {theirs.get('user')}@{theirs.get('address')}, "
                                  f"not of {server['user']}@{server['address']}: choose another file")
    return Writer(path), f"resuming {path} ({contents.count} records kept{note})"
