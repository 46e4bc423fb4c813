"""Reading hot rows (store_raw): decode the varint slots of each layout in one numpy pass."""

from collections import defaultdict
from collections.abc import Iterator
from datetime import datetime, timedelta

import numpy as np
from django.db import connection

from store import codec
from store.catalog import MetricInfo, ReadLayout
from store.points import SampleArrays, concat
from store.request_memo import RequestMemo

# Hot rows of one server and source over a time range, oldest first.
SELECT_RAW = (
    "SELECT (extract(epoch from ts) * 1000000)::bigint, coalesce(interval_ms, -1), layout_id, ivals, fvals "
    "FROM store_raw WHERE server_id = %s AND source_id = %s AND ts >= %s AND ts <= %s ORDER BY ts"
)
# SELECT_RAW without the slots no wanted metric is in (a row's fvals text of ~80 floats costs more to parse
# than its ivals): (any integer metric wanted, any float one) -> the statement.
RANGE_COLUMNS = {(ints, floats): SELECT_RAW.replace("ivals, fvals", f"{'ivals' if ints else 'NULL'}, "
                                                                   f"{'fvals' if floats else 'NULL'}")
                 for ints in (True, False) for floats in (True, False)}
# The newest hot rows of one server and source, for latest().
SELECT_NEWEST = (
    "SELECT (extract(epoch from ts) * 1000000)::bigint, coalesce(interval_ms, -1), layout_id, ivals, fvals "
    "FROM store_raw WHERE server_id = %s AND source_id = %s ORDER BY ts DESC LIMIT %s"
)

# The same for many (server, source) pairs in one statement (one index range scan per pair).
_COLUMNS = "(extract(epoch from ts) * 1000000)::bigint, coalesce(interval_ms, -1), layout_id, ivals, fvals"
SELECT_RAW_MANY = (
    "SELECT p.k, r.* FROM unnest(%s::int[], %s::int[], %s::timestamptz[], %s::timestamptz[]) WITH ORDINALITY "
    f"AS p(sid, src, lo, hi, k) CROSS JOIN LATERAL (SELECT {_COLUMNS} FROM store_raw "
    "WHERE server_id = p.sid AND source_id = p.src AND ts >= p.lo AND ts <= p.hi "
    "AND ts >= %s AND ts <= %s ORDER BY ts OFFSET 0) r ORDER BY 1, 2"
)  # (the constant bounds, the windows' union, let the planner leave the other partitions out)
# SELECT_RAW_MANY without the slots no wanted metric is in (RANGE_COLUMNS'): TPS's hot rows read no floats.
MANY_COLUMNS = {(ints, floats): SELECT_RAW_MANY.replace("ivals, fvals", f"{'ivals' if ints else 'NULL'}, "
                                                                        f"{'fvals' if floats else 'NULL'}")
                for ints in (True, False) for floats in (True, False)}
# The newest hot rows of many pairs, newest first, since a time (so only the recent partitions are
# scanned; pairs with fewer rows there are asked again without it: SELECT_NEWEST_MANY_ALL).
SELECT_NEWEST_MANY = (
    f"SELECT p.k, r.* FROM unnest(%s::int[], %s::int[]) WITH ORDINALITY AS p(sid, src, k) CROSS JOIN LATERAL ("
    f"SELECT {_COLUMNS} FROM store_raw WHERE server_id = p.sid AND source_id = p.src AND ts >= %s "
    "ORDER BY ts DESC LIMIT %s) r ORDER BY 1, 2 DESC"
)
SELECT_NEWEST_MANY_ALL = (
    f"SELECT p.k, r.* FROM unnest(%s::int[], %s::int[]) WITH ORDINALITY AS p(sid, src, k) CROSS JOIN LATERAL ("
    f"SELECT {_COLUMNS} FROM store_raw WHERE server_id = p.sid AND source_id = p.src "
    "ORDER BY ts DESC LIMIT %s) r ORDER BY 1, 2 DESC"
)
NEWEST_ROWS = 6  # latest(): enough neighbours to tell whether the newest delta spans a hole
RECENT = timedelta(hours=2)  # the newest rows are looked for here first


def read(server_id: int, metrics: list[MetricInfo], layouts: list[ReadLayout],
         start: datetime, end: datetime) -> dict[int, SampleArrays]:
    """SampleArrays per metric id from the hot rows of one server."""
    return _per_source(server_id, metrics, layouts, SELECT_RAW, [start, end])


def newest(server_id: int, metrics: list[MetricInfo], layouts: list[ReadLayout],
           rows: int = NEWEST_ROWS) -> dict[int, SampleArrays]:
    """SampleArrays per metric id from the newest hot rows (newest first)."""
    return _per_source(server_id, metrics, layouts, SELECT_NEWEST, [rows])


def source_rows(server_id: int, ids: set[int], layouts: list[ReadLayout], sql: str,
                params: list) -> Iterator[tuple[dict[int, ReadLayout], list[tuple]]]:
    """Each source's layouts and its hot rows by `sql`, in source order; sources holding none of `ids` unread.
    In a request, a range read again (a ranking's, then its chart's) is answered from the first read."""
    for source_id in sorted({lay.source_id for lay in layouts}):
        mine = {lay.id: lay for lay in layouts if lay.source_id == source_id}
        ints = any(not ids.isdisjoint(lay.int_ids) for lay in mine.values())
        floats = any(not ids.isdisjoint(lay.float_ids) for lay in mine.values())
        if not ints and not floats:
            continue
        if sql is SELECT_RAW:
            yield mine, _range_rows(server_id, source_id, ints, floats, params)
            continue
        with connection.cursor() as cur:
            cur.execute(sql, [server_id, source_id, *params])
            yield mine, cur.fetchall()


KEEP_ROWS, KEEP_ROWS_S = 16, 5.0  # a request keeps its last 16 ranges' rows (a page reads 15), each for 5 s at most
# A range's hot rows, read again after this process writes samples (store.ingest).
_ROWS: RequestMemo[list[tuple]] = RequestMemo(KEEP_ROWS_S, KEEP_ROWS)


def keep_rows(**_signal) -> None:
    """A request starts: from now on a range's hot rows read again come from its first read."""
    _ROWS.start()


def stop_keeping_rows(**_signal) -> None:
    _ROWS.stop()


def wrote() -> None:
    """This process wrote samples (store.ingest): no range read before holds them."""
    _ROWS.changed()


def _range_rows(server_id: int, source_id: int, ints: bool, floats: bool, params: list) -> list[tuple]:
    def read() -> list[tuple]:
        with connection.cursor() as cur:
            cur.execute(RANGE_COLUMNS[ints, floats], [server_id, source_id, *params])
            return cur.fetchall()

    joined = _read_in_parts(server_id, source_id, ints, floats, *params)
    return joined if joined is not None else list(_ROWS.get((server_id, source_id, ints, floats, *params), read))


TICK = timedelta(microseconds=1)  # the store's resolution: a range read in parts ends a tick before the next begins


def _read_in_parts(server_id: int, source_id: int, ints: bool, floats: bool, start: datetime,
                   end: datetime) -> list[tuple] | None:
    """The hot rows of [start, end] where this request read them in consecutive parts (at least the columns asked):
    their rows joined, in time order; None where it did not. A ranking sums a range's minutes, hours and minutes
    (store.query.ranking_totals), then its chart reads the whole range: the current hour's rows were read twice."""
    parts = {key[4]: (key[5], rows) for key, rows in _ROWS.kept()
             if isinstance(key, tuple) and key[:2] == (server_id, source_id) and key[2] >= ints and key[3] >= floats}
    joined: list[tuple] = []
    at = start
    while at in parts:
        upto, rows = parts[at]
        joined += rows
        if upto >= end:
            return joined if upto == end else None
        at = upto + TICK
    return None


def _per_source(server_id, metrics, layouts, sql, params) -> dict[int, SampleArrays]:
    out: dict[int, SampleArrays] = {}
    ids = {m.id for m in metrics}
    for mine, rows in source_rows(server_id, ids, layouts, sql, params):
        if sql is SELECT_NEWEST:
            rows.reverse()  # oldest first, like every SampleArrays
        out.update(decode_rows(rows, mine, ids))
    return out


def decode_rows(rows: list[tuple], layouts: dict[int, ReadLayout], ids: set[int]) -> dict[int, SampleArrays]:
    """Rows (ts_us, interval_ms, layout_id, ivals, fvals) -> SampleArrays of the wanted metric ids."""
    groups = defaultdict(list)
    for r in rows:
        groups[r[2]].append(r)
    parts: dict[int, list[SampleArrays]] = defaultdict(list)
    for layout_id, group in groups.items():
        layout = layouts.get(layout_id)
        if layout is None:
            continue  # a layout of another source or a rolled-back test
        for mid, pts in _decode_group(group, layout, ids).items():
            parts[mid].append(pts)
    return {mid: concat(p) if len(p) > 1 else p[0] for mid, p in parts.items()}


def _decode_group(group: list[tuple], layout: ReadLayout, ids: set[int]) -> dict[int, SampleArrays]:
    ts = np.array([r[0] for r in group], dtype=np.int64)
    iv = np.array([r[1] for r in group], dtype=np.int64)
    out = {}
    wanted_ints = [(k, mid) for k, mid in enumerate(layout.int_ids) if mid in ids]
    if wanted_ints:
        vals, nulls, at = int_slots(b"".join(bytes(r[3]) for r in group), len(group), len(layout.int_ids),
                                     [k for k, _mid in wanted_ints])
        for (_k, mid), j in zip(wanted_ints, at, strict=True):
            keep = ~nulls[:, j]
            if keep.any():
                out[mid] = SampleArrays(ts[keep], vals[keep, j], iv[keep])
    for k, mid in enumerate(layout.float_ids):
        if mid in ids:
            col = [r[4][k] if r[4] else None for r in group]
            keep = np.array([v is not None for v in col], dtype=bool)
            if keep.any():
                out[mid] = SampleArrays(ts[keep], np.array([v for v in col if v is not None], np.float64), iv[keep])
    return out


def int_slots(data: bytes, rows: int, slots: int, wanted: list[int]) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """(values, nulls) of rows x slots varints, a row per row, and where each wanted slot is in their columns:
    only the wanted slots are put together when they are few of many (a wait or two of ~700) and every row
    holds its slots. Half of them or fewer (a ranking's 348 wait times of 696 wait slots) cost less put together
    alone than decoding every code; each code's end is found once."""
    ends = np.flatnonzero(np.frombuffer(data, np.uint8) < 0x80) if 2 * len(wanted) <= slots else None
    if ends is not None and len(ends) == rows * slots:
        which = np.arange(rows)[:, None] * slots + np.array(wanted)[None, :]
        vals, nulls = codec.decode_at(data, which.ravel(), ends)
        return vals.reshape(rows, -1), nulls.reshape(rows, -1), list(range(len(wanted)))
    vals, nulls = codec.decode(data)
    return vals.reshape(rows, -1), nulls.reshape(rows, -1), wanted


Pair = tuple[int, int]  # (server id, source id)


def sources_holding(layouts: list[ReadLayout], wanted: dict[int, set[int]]) -> dict[Pair, dict[int, ReadLayout]]:
    """The (server, source) pairs whose layouts hold a wanted metric id (wanted: server id -> ids),
    each with its layouts by id."""
    out: dict[Pair, dict[int, ReadLayout]] = {}
    for lay in layouts:
        ids = wanted.get(lay.server_id)
        if ids:
            out.setdefault((lay.server_id, lay.source_id), {})[lay.id] = lay
    return {pair: out[pair] for pair in sorted(out)  # by source within a server, as _per_source reads them
            if any(not wanted[pair[0]].isdisjoint(lay.int_ids + lay.float_ids) for lay in out[pair].values())}


def rows_many(pairs: dict[Pair, dict[int, ReadLayout]], windows: dict[int, tuple[datetime, datetime]],
              wanted: dict[int, set[int]]) -> dict[Pair, list[tuple]]:
    """The hot rows of each pair (sources_holding's) with start <= ts <= end (its server's window), oldest first,
    in one statement; a row's integer or float slots read only where a pair's layouts hold a wanted one (NULL
    otherwise, as decode_rows() reads them)."""
    if not pairs:
        return {}
    ints = any(not wanted[p[0]].isdisjoint(lay.int_ids) for p, lays in pairs.items() for lay in lays.values())
    floats = any(not wanted[p[0]].isdisjoint(lay.float_ids) for p, lays in pairs.items() for lay in lays.values())
    with connection.cursor() as cur:
        los, his = [windows[p[0]][0] for p in pairs], [windows[p[0]][1] for p in pairs]
        cur.execute(MANY_COLUMNS[ints, floats],
                    [[p[0] for p in pairs], [p[1] for p in pairs], los, his, min(los), max(his)])
        return _by_pair(list(pairs), cur.fetchall())


def newest_rows_many(pairs: list[Pair], now: datetime, rows: int = NEWEST_ROWS) -> dict[Pair, list[tuple]]:
    """The newest `rows` hot rows of each pair, oldest first (as newest() reads them for one server)."""
    if not pairs:
        return {}
    with connection.cursor() as cur:
        cur.execute(SELECT_NEWEST_MANY, [[p[0] for p in pairs], [p[1] for p in pairs], now - RECENT, rows])
        found = _by_pair(pairs, cur.fetchall())
        short = [p for p in pairs if len(found.get(p, ())) < rows]  # stopped, new, or older rows only
        if short:
            cur.execute(SELECT_NEWEST_MANY_ALL, [[p[0] for p in short], [p[1] for p in short], rows])
            found |= _by_pair(short, cur.fetchall())
    for got in found.values():
        got.reverse()  # oldest first, like every SampleArrays
    return found


def _by_pair(pairs: list[Pair], rows: list[tuple]) -> dict[Pair, list[tuple]]:
    """Rows (k, ts_us, interval_ms, layout_id, ivals, fvals) by pair (k: its 1-based place in pairs)."""
    out: dict[Pair, list[tuple]] = {}
    for r in rows:
        out.setdefault(pairs[r[0] - 1], []).append(r[1:])
    return out
