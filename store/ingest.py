"""Writing samples: one compact row per server per poll per source, by binary COPY.

Idempotent (a poll written twice is stored once) and safe with concurrent
writers (the unique index on (server, source, ts) arbitrates). If PostgreSQL
is unreachable the samples go to a bounded Redis buffer (store.buffer)
and are written by the next successful write or by `maintain`.
"""

import logging
import numbers
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from functools import partial
from itertools import chain
from operator import is_not

import numpy as np
import psycopg
import redis
from django.db import connection, transaction
from django.db.utils import IntegrityError

from store import buffer, catalog, codec, copy_binary, one_statement, partitions, read_raw
from store.outage import DOWN_ERRORS, OutageLog, drop_connection
from store.sample import Sample

log = logging.getLogger(__name__)

BUFFERING = OutageLog(
    log, "store: PostgreSQL unreachable ({reason}); buffering samples in Redis (samples since the last line:"
         " {counted}; said once a minute while it lasts)",
    "store: PostgreSQL answers again; the samples buffered in Redis are written")

# Fast path: straight into the partitioned table.
COPY_RAW = (
    "COPY store_raw (ts, server_id, layout_id, interval_ms, source_id, ivals, fvals) "
    "FROM STDIN (FORMAT BINARY)"
)
# Slow path when some polls already exist: stage, then insert what is new.
CREATE_STAGE = (
    "CREATE TEMP TABLE IF NOT EXISTS store_raw_stage "
    "(LIKE store_raw INCLUDING DEFAULTS) ON COMMIT DELETE ROWS"
)
COPY_STAGE = COPY_RAW.replace("store_raw ", "store_raw_stage ")
MERGE_STAGE = "INSERT INTO store_raw SELECT * FROM store_raw_stage ON CONFLICT DO NOTHING"
CLEAR_STAGE = "DELETE FROM store_raw_stage"

INT64_MAX = 2**63 - 1


def write_samples(samples: Iterable[Sample]) -> None:
    """Store samples; buffer them in Redis if PostgreSQL is unreachable."""
    samples = list(samples)
    try:
        if samples:
            write_now(samples)
        BUFFERING.up()
        if _buffered():
            flush_buffer()
    except DOWN_ERRORS as exc:
        BUFFERING.down(exc, len(samples))
        drop_connection()
        buffer.push(samples)


def _buffered() -> bool:
    try:
        return buffer.pending()
    except redis.RedisError as exc:  # the samples are written; only the buffer check failed
        log.warning("store: cannot check the Redis buffer (%s); maintain will flush it", exc)
        return False


def flush_buffer() -> int:
    """Write the buffered samples (oldest first); return how many were written."""
    return buffer.drain(write_now)


def write_now(samples: list[Sample]) -> None:
    """Write to PostgreSQL now; raises if it is unreachable.

    Only the COPY is a transaction: layouts and partitions are idempotent and only grow, so they need
    not roll back with it; in autocommit the COPY is a transaction by itself, with no BEGIN or COMMIT
    (store.one_statement), and inside a caller's transaction a savepoint.
    """
    rows = _dedupe(samples)
    data, hours = _encode(rows)
    for hour in hours:
        partitions.ensure(partitions.RAW, hour)
    _copy(data, hours)
    read_raw.wrote()


def _dedupe(samples: list[Sample]) -> list[Sample]:
    """One sample per poll, in key order: writers that overlap then wait for each other
    instead of deadlocking on the unique index."""
    by_key = {(s.server_id, s.source, _utc(s.ts)): s for s in samples}
    return [by_key[k] for k in sorted(by_key)]


def _utc(ts: datetime) -> datetime:
    return ts.replace(tzinfo=UTC) if ts.tzinfo is None else ts.astimezone(UTC)


def _encode(rows: list[Sample]) -> tuple[bytes, set[datetime]]:
    """COPY data for rows, resolving (and if needed creating) their layouts."""
    for _attempt in range(2):
        slots, used_cached = [], set()
        for s in rows:
            layout, from_cache, ivals, fvals = _placed(s)
            if from_cache:
                used_cached.add(layout.id)
            slots.append((s, layout, ivals, fvals))
        if not used_cached or catalog.verify(used_cached):
            return _copy_data(slots)
    raise RuntimeError("store: layouts vanished twice while writing")  # pragma: no cover


def _copy_data(slots: list[tuple]) -> tuple[bytes, set[datetime]]:
    """All rows' integer slots varint-encoded in one numpy pass, then the COPY tuples."""
    encoded = _varint_rows([ivals for _s, _l, ivals, _f in slots])
    parts, hours = [copy_binary.HEADER], set()
    for (s, layout, _i, fvals), ivals in zip(slots, encoded, strict=True):
        interval_ms = None if s.interval is None else round(s.interval * 1000)
        ts = _utc(s.ts)
        hours.add(partitions.RAW.floor(ts))
        parts.append(copy_binary.raw_row(ts, s.server_id, layout.id, interval_ms,
                                         layout.source_id, ivals, fvals))
    parts.append(copy_binary.TRAILER)
    return b"".join(parts), hours


def _varint_rows(rows: list[list]) -> list[bytes | None]:
    flat = list(chain.from_iterable(rows))
    if not flat:
        return [None] * len(rows)
    nulls = None
    if None in flat:
        nulls = np.array([v is None for v in flat], dtype=bool)
        flat = [0 if v is None else v for v in flat]
    data, lengths = codec.varints(codec.codes(np.array(flat, dtype=np.int64), nulls))
    counts = [len(r) for r in rows]
    byte_at = np.concatenate([[0], np.cumsum(lengths)])
    bounds = byte_at[np.concatenate([[0], np.cumsum(counts)])].tolist()
    return [data[bounds[k]:bounds[k + 1]] if counts[k] else None for k in range(len(rows))]


def _placed(s: Sample) -> tuple[catalog.WriteLayout, bool, list, list]:
    """The sample's layout (and whether it came from the cache), its integer and its float slots."""
    layout = catalog.cached(s.server_id, s.source)
    ivals = _cached_slots(s.values, layout) if layout is not None else None
    if layout is not None and ivals is not None:
        return layout, True, ivals, _float_slots(s.values, layout)
    layout, from_cache = _layout(s)
    return layout, from_cache, *_slots(s, layout)


_INT_OR_NONE = frozenset((int, type(None)))
# A layout's id -> where the integer slots held floats in its last sample (a status read as 0.000000): a
# usual poll has them at the same few places, found by a C count instead of a Python test of each slot.
_FLOATS_AT: dict[int, list[int]] = {}
MAX_FLOATS_AT = 65536  # layouts remembered: past this, found again


def _cached_slots(values: Mapping, layout: catalog.WriteLayout) -> list | None:
    """The integer slots, when the cached layout surely holds every value as it is (a usual poll: every
    name has a slot, each integer slot gets an int64 or nothing); None: _misfits() must look.

    Passes of C (set, map, min, max) instead of a Python test of each of a poll's ~700 values.
    """
    if not layout.names.issuperset(values):
        return None
    ivals: list = list(map(values.get, layout.int_names))
    types = list(map(type, ivals))
    kinds = set(types)
    if float in kinds:  # a whole float goes as an integer, as _slots() does
        at = _floats_at(layout.id, types)
        if not all(ivals[i].is_integer() and abs(ivals[i]) <= 2**53 for i in at):
            return None
        for i in at:
            ivals[i] = int(ivals[i])
        kinds = kinds - {float} | {int}
    if not _INT_OR_NONE.issuperset(kinds):
        return None
    present: list = list(filter(partial(is_not, None), ivals)) if type(None) in kinds else ivals
    if present and not (-INT64_MAX <= min(present) and max(present) <= INT64_MAX):
        return None
    return ivals


def _floats_at(layout_id: int, types: list[type]) -> list[int]:
    """The places of the floats among these slots' types: those of the layout's last sample if they still are."""
    at = _FLOATS_AT.get(layout_id)
    if at is None or len(at) != types.count(float) or not all(types[i] is float for i in at):
        at = [i for i, kind in enumerate(types) if kind is float]
        if len(_FLOATS_AT) >= MAX_FLOATS_AT:
            _FLOATS_AT.clear()
        _FLOATS_AT[layout_id] = at
    return at


def _layout(s: Sample) -> tuple[catalog.WriteLayout, bool]:
    """The layout for a sample, extended if the sample has names or types it lacks."""
    layout = catalog.cached(s.server_id, s.source)
    new_ints, new_floats = _misfits(s, layout)
    if layout is not None and not new_ints and not new_floats:
        return layout, True
    return catalog.extend(s.server_id, s.source, layout, new_ints, new_floats), False


def _misfits(s: Sample, layout: catalog.WriteLayout | None) -> tuple[dict, dict]:
    """Names the layout has no suitable slot for: (int names, float names) -> is counter."""
    names = layout.names if layout else frozenset()
    floats = frozenset(layout.float_names) if layout else frozenset()
    new_ints: dict[str, bool] = {}
    new_floats: dict[str, bool] = {}
    for name, v in s.values.items():
        if v is None:
            continue
        as_float = not _fits_int(v)
        if name not in names or (as_float and name not in floats):
            (new_floats if as_float else new_ints)[name] = name in s.counters
    return new_ints, new_floats


def _fits_int(v) -> bool:
    """Whether v can go into an integer (int64) slot without losing anything."""
    if v.__class__ is int:
        return -INT64_MAX <= v <= INT64_MAX
    if isinstance(v, float):
        return v.is_integer() and abs(v) <= 2**53  # NaN and infinities are not
    if isinstance(v, numbers.Integral):  # bool, numpy integers
        return -INT64_MAX <= int(v) <= INT64_MAX
    return False


def _slots(s: Sample, layout: catalog.WriteLayout) -> tuple[list, list]:
    vals = s.values
    ivals = [vals.get(n) for n in layout.int_names]
    if any(v is not None and v.__class__ is not int for v in ivals):
        ivals = [None if v is None else int(v) for v in ivals]
    return ivals, _float_slots(vals, layout)


def _float_slots(vals: Mapping, layout: catalog.WriteLayout) -> list:
    return [None if (v := vals.get(n)) is None else float(v) for n in layout.float_names]


def _copy(data: bytes, hours: set[datetime]) -> None:
    with connection.cursor() as cur:
        try:
            with one_statement.alone():
                _copy_into(cur.cursor, COPY_RAW, data)
            return
        except (psycopg.errors.UniqueViolation, IntegrityError):
            pass  # some polls are already stored: keep the new ones only
        except psycopg.errors.CheckViolation:
            partitions.forget()  # a partition was dropped since we cached it
            for hour in hours:
                partitions.ensure(partitions.RAW, hour)
        with transaction.atomic():  # the stage's rows live until the commit
            cur.execute(CREATE_STAGE)
            cur.execute(CLEAR_STAGE)
            _copy_into(cur.cursor, COPY_STAGE, data)
            cur.execute(MERGE_STAGE)
            cur.execute(CLEAR_STAGE)


def _copy_into(pg_cursor, sql: str, data: bytes) -> None:
    with pg_cursor.copy(sql) as copy:
        copy.write(data)


def written_since(server_id: int, at: datetime) -> bool:
    """Whether a sample of the server read at or after `at` reached the store: PostgreSQL (the unique index
    answers) or, while it was unreachable, the Redis buffer its samples wait in (buffer.buffered_since). With
    PostgreSQL unreachable now and none buffered, none: the writes it took before it went away are not told from
    those it never got, and the likelier is that the poll asked about found it down too."""
    if buffer.buffered_since(server_id, at):
        return True
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT EXISTS (SELECT 1 FROM store_raw WHERE server_id = %s AND ts >= %s)", [server_id, at])
            return bool(cursor.fetchone()[0])
    except DOWN_ERRORS as exc:
        log.warning("store: PostgreSQL unreachable (%s); taking server %s's samples since %s as not written",
                    exc, server_id, at)
        drop_connection()
        return False
