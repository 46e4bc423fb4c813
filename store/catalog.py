"""The metric catalog: sources, metric ids and the layouts of raw rows.

A layout lists, per server and source, the metric held by each slot of a raw
row's integer and float arrays. Layouts only grow (new names are appended), so
a server upgrade or a source that finds new events gets a new layout while old
rows keep theirs. Writers cache the current layout per server and source and
check once per write that the cached ids still exist (tests roll back).
"""

import hashlib
from bisect import bisect_left
from collections.abc import Callable
from dataclasses import dataclass, field
from fnmatch import fnmatchcase

from django.db import connection

from store.binary_params import binary_cursor, fetch_all
from store.request_memo import RequestMemo

# The statements with arrays bind in binary (%b, store.binary_params): no array quoting in Python.
# Register a source name (idempotent).
UPSERT_SOURCE = "INSERT INTO store_source (name) VALUES (%s) ON CONFLICT (name) DO NOTHING"
SELECT_SOURCE = "SELECT id FROM store_source WHERE name = %s"
# Register metric names of a server (idempotent) and read their ids back.
UPSERT_METRICS = (
    "INSERT INTO store_metric (server_id, name, counter) "
    "SELECT %b, n, c FROM unnest(%b::text[], %b::boolean[]) AS t(n, c) "
    "ON CONFLICT (server_id, name) DO UPDATE SET counter = store_metric.counter OR EXCLUDED.counter"
)
SELECT_METRIC_IDS = "SELECT name, id FROM store_metric WHERE server_id = %b AND name = ANY(%b::text[])"
# Register a layout (idempotent by digest) and read its id back.
UPSERT_LAYOUT = (
    "INSERT INTO store_layout (server_id, source_id, int_ids, float_ids, digest, created_at) "
    "VALUES (%b, %b, %b::int[], %b::int[], %b, now()) ON CONFLICT (digest) DO NOTHING"
)
SELECT_LAYOUT = "SELECT id FROM store_layout WHERE digest = %s"
# Which cached layouts still exist.
# How many of these layouts exist: the ids as an array's text, which PostgreSQL parses (psycopg dumps a list
# parameter element by element in Python: some 150 ids every batch), and one count back instead of their rows.
EXISTING_LAYOUTS = "SELECT count(*) FROM store_layout WHERE id = ANY(%s::bigint[])"
# Readers: all metrics and layouts of some servers.
SERVER_METRICS = "SELECT id, server_id, name, counter FROM store_metric WHERE server_id = ANY(%s)"
# Every metric name of one server, and nothing else of them (a page choosing its lines among them).
SERVER_NAMES = "SELECT name FROM store_metric WHERE server_id = %s"
# The same, only the names equal to one of a list or LIKE one of another (the '*' patterns).
SERVER_METRICS_NAMED = SERVER_METRICS + " AND (name = ANY(%s) OR name LIKE ANY(%s))"
SERVER_LAYOUTS = (
    "SELECT l.id, l.server_id, l.source_id, l.int_ids, l.float_ids, s.name "
    "FROM store_layout l JOIN store_source s ON s.id = l.source_id WHERE l.server_id = ANY(%s)"
)


@dataclass(frozen=True)
class WriteLayout:
    """A layout as a writer uses it: slot order by name."""

    id: int
    source_id: int
    int_names: tuple[str, ...]
    float_names: tuple[str, ...]
    names: frozenset[str] = field(default=frozenset())


@dataclass(frozen=True)
class MetricInfo:
    id: int
    server_id: int
    name: str
    counter: bool

    @property
    def kind(self) -> str:
        return "counter" if self.counter else "gauge"


@dataclass(frozen=True)
class ReadLayout:
    id: int
    server_id: int
    source_id: int
    source: str
    int_ids: tuple[int, ...]
    float_ids: tuple[int, ...]


_current: dict[tuple[int, str], WriteLayout] = {}


def forget() -> None:
    _current.clear()
    _LAYOUTS.changed()
    _METRICS.changed()


def cached(server_id: int, source: str) -> WriteLayout | None:
    return _current.get((server_id, source))


def verify(layout_ids: set[int]) -> bool:
    """True if every cached layout used by this write still exists; else drop the cache."""
    [(found,)] = fetch_all(EXISTING_LAYOUTS, ["{" + ",".join(map(str, layout_ids)) + "}"])
    if found != len(layout_ids):
        forget()
        return False
    return True


def source_id(name: str) -> int:
    with connection.cursor() as cur:
        cur.execute(UPSERT_SOURCE, [name])
        cur.execute(SELECT_SOURCE, [name])
        return cur.fetchone()[0]


def metric_ids(server_id: int, kinds: dict[str, bool]) -> dict[str, int]:
    """Ids of names (name -> is counter), registering new ones."""
    names = sorted(kinds)
    with binary_cursor() as cur:
        cur.execute(UPSERT_METRICS, [server_id, names, [bool(kinds[n]) for n in names]])
        cur.execute(SELECT_METRIC_IDS, [server_id, names])
        _METRICS.changed()
        return dict(cur.fetchall())


def extend(server_id: int, source: str, old: WriteLayout | None,
           new_ints: dict[str, bool], new_floats: dict[str, bool]) -> WriteLayout:
    """The layout after old with names added (or moved from int to float slots).

    new_ints / new_floats map names not yet in a suitable slot to "is counter".
    """
    ints = [n for n in (old.int_names if old else ()) if n not in new_floats]
    floats = list(old.float_names) if old else []
    ints += sorted(n for n in new_ints if n not in ints)
    floats += sorted(n for n in new_floats if n not in floats)
    kinds = {n: False for n in ints + floats} | new_ints | new_floats
    ids = metric_ids(server_id, kinds)
    sid = source_id(source)
    int_ids, float_ids = [ids[n] for n in ints], [ids[n] for n in floats]
    digest = hashlib.sha256(repr((server_id, sid, int_ids, float_ids)).encode()).hexdigest()
    with binary_cursor() as cur:
        cur.execute(UPSERT_LAYOUT, [server_id, sid, int_ids, float_ids, digest])
        cur.execute(SELECT_LAYOUT, [digest])
        (lid,) = cur.fetchone() or (None,)
    layout = WriteLayout(lid, sid, tuple(ints), tuple(floats), frozenset(ints + floats))
    _current[(server_id, source)] = layout
    _LAYOUTS.changed()
    return layout


def server_metrics(server_ids: list[int], patterns: list[str] | None = None) -> list[MetricInfo]:
    """The servers' metrics; with patterns, only those matching one (PostgreSQL filters: a fleet has
    hundreds of thousands, and a page wants a few of each server's). In a request, one server's with patterns
    come from all of its metrics read once (a page asks 4-12 times)."""
    if patterns is not None and len(server_ids) == 1 and _METRICS.keeping():
        (sid,) = server_ids
        return _METRICS.get(sid, lambda: _Indexed.read(sid)).matching(patterns)
    with connection.cursor() as cur:
        if patterns is None:
            cur.execute(SERVER_METRICS, [list(server_ids)])
        else:
            exact = [p for p in patterns if "*" not in p]
            likes = [_like(p) for p in patterns if "*" in p]
            cur.execute(SERVER_METRICS_NAMED, [list(server_ids), exact, likes])
        return [MetricInfo(*r) for r in cur.fetchall()]


class _Indexed:
    """One server's metrics in name order, for matching() without a pass over them all for each name or prefix.
    Kept as plain lists (a MetricInfo is made for a match only): a page's 1,300 objects more a request brought
    on more of the cyclic collector's passes over the heap."""

    def __init__(self, server_id: int, rows: list[tuple[int, str, bool]]):
        rows.sort(key=lambda r: r[1])
        self.server_id = server_id
        self.ids, self.names, self.counters = [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows]

    @classmethod
    def read(cls, server_id: int) -> "_Indexed":
        with connection.cursor() as cur:
            cur.execute(SERVER_METRICS, [[server_id]])
            return cls(server_id, [(r[0], r[2], r[3]) for r in cur.fetchall()])

    def matching(self, patterns: list[str]) -> list[MetricInfo]:
        """The metrics matching one of the patterns (as SERVER_METRICS_NAMED selects them), in name order."""
        names, at = self.names, set()
        for pattern in patterns:
            if "*" not in pattern:
                i = bisect_left(names, pattern)
                at.update([i] if i < len(names) and names[i] == pattern else [])
            elif pattern.count("*") == 1 and pattern.endswith("*"):
                prefix = pattern[:-1]
                i = bisect_left(names, prefix)
                while i < len(names) and names[i].startswith(prefix):
                    at.add(i)
                    i += 1
            else:
                test = _matcher(pattern)
                at.update(i for i, name in enumerate(names) if test(name))
        return [MetricInfo(self.ids[i], self.server_id, names[i], self.counters[i]) for i in sorted(at)]


_METRICS: RequestMemo[_Indexed] = RequestMemo(5.0)  # per server; read again after this process registers a name


def keep_metrics(**_signal) -> None:
    """A request starts: server_metrics() of one server with patterns answers from one read of all of its."""
    _METRICS.start()


def stop_keeping_metrics(**_signal) -> None:
    _METRICS.stop()


def server_names(server_id: int) -> list[str]:
    """Every metric name of the server, unordered: server_metrics()'s names without a MetricInfo each (1,200)."""
    with connection.cursor() as cur:
        cur.execute(SERVER_NAMES, [server_id])
        return [r[0] for r in cur.fetchall()]


def _like(pattern: str) -> str:
    """A '*' pattern as LIKE spells it (backslash, '%' and '_' taken literally)."""
    escaped = pattern.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return escaped.replace("*", "%")


def server_layouts(server_ids: list[int]) -> list[ReadLayout]:
    """The servers' layouts; in a request, those of the same servers read in the last KEEP_LAYOUTS_S seconds
    (a page's reads ask 8-9 times) unless this process has made one since."""
    def read() -> list[ReadLayout]:
        with connection.cursor() as cur:
            cur.execute(SERVER_LAYOUTS, [list(server_ids)])
            return [ReadLayout(r[0], r[1], r[2], r[5], tuple(r[3]), tuple(r[4])) for r in cur.fetchall()]

    return list(_LAYOUTS.get(tuple(server_ids), read))


KEEP_LAYOUTS_S = 5.0
# Layouts per list of servers, read again after this process makes or forgets one (any thread).
_LAYOUTS: RequestMemo[list[ReadLayout]] = RequestMemo(KEEP_LAYOUTS_S)


def keep_layouts(**_signal) -> None:
    """A request starts: server_layouts() of the same servers answers from its first read."""
    _LAYOUTS.start()


def stop_keeping_layouts(**_signal) -> None:
    _LAYOUTS.stop()


def matching(metrics: list[MetricInfo], patterns: list[str]) -> list[MetricInfo]:
    """Metrics whose name equals a pattern or matches it with '*' wildcards, in pattern order."""
    out: dict[int, MetricInfo] = {}
    by_name = sorted(metrics, key=lambda m: (m.server_id, m.name))
    named: dict[str, list[MetricInfo]] = {}  # an exact name is looked up, not tested against every metric
    for m in by_name:
        named.setdefault(m.name, []).append(m)
    for pattern in patterns:
        if "*" not in pattern:
            for m in named.get(pattern, ()):
                out.setdefault(m.id, m)
            continue
        test = _matcher(pattern)
        for m in by_name:
            if test(m.name):
                out.setdefault(m.id, m)
    return list(out.values())


def _matcher(pattern: str) -> Callable[[str], bool]:
    """The test of one '*' pattern, cheapest first: a prefix, else fnmatch's (a fleet's names are many)."""
    if pattern.count("*") == 1 and pattern.endswith("*"):
        prefix = pattern[:-1]
        return lambda name: name.startswith(prefix)
    glob = pattern.replace("[", "[[]").replace("?", "[?]")  # only '*' is special
    return lambda name: name == pattern or fnmatchcase(name, glob)
