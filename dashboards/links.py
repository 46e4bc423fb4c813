"""Links between pages: a URL named in the urls confs, with its query string urlencoded."""

from collections.abc import Container, Mapping
from datetime import UTC, datetime, timedelta
from urllib.parse import urlencode

from django.urls import reverse

from dashboards.timerange import TimeRange
from store import query

PLACEHOLDER = 0  # the id id_path() reverses with, to cut the path around it



def link(name: str, *args: object, query: Mapping[str, object] | None = None, safe: str = "") -> str:
    """The path of the URL named `name` (args fill its parameters), then `?query` when one is given.

    safe keeps some characters as typed (",": runs=1,2 reads as the ids a person types).
    """
    path = reverse(name, args=args)
    return f"{path}?{urlencode(query, safe=safe)}" if query else path


def id_path(name: str, *args: object) -> tuple[str, str]:
    """The path of the URL named `name` (args fill its first parameters, an id its last) around its id: reversed
    once, it links any id.

    A table of many rows links each row without a reverse() per row (the fleet table: 700 links a page).
    """
    before, found, after = reverse(name, args=[*args, PLACEHOLDER]).rpartition(f"/{PLACEHOLDER}/")
    if not found:
        raise ValueError(f"{name}: its path has no /{PLACEHOLDER}/ segment to put an id in")
    return before + "/", "/" + after


def chart_csv(server_id: int, metrics: list[str], tr: TimeRange, points: int,
              collected: Container[str] | None = None) -> str:
    """The CSV of exactly what a chart shows: the same range and the same point budget (w); "" (no link)
    when the server has collected none of its series.

    A rounded step would not do: over 1h at 1,100 points it is 3 s instead of
    3.27 s, so the CSV's bins and rows would differ from the chart's; nor would
    times cut to the second.

    collected: where the page read the metrics' lines (names, no pattern), what it found (series_map's keys: every
    one the server has collected, read or not), so the catalog is not asked again for the same answer.
    """
    # The export refuses a name never collected (400).
    names = query.collected(server_id, metrics) if collected is None else [m for m in metrics if m in collected]
    return link("export-csv", query={
        "server": server_id, "metrics": ",".join(names), "from": exact_param(tr.start),
        "to": exact_param(tr.end), "w": points,
    }) if names else ""


def exact_param(ts: datetime) -> str:
    """ISO with microseconds: a live range ends at "now", and the newest poll may be within its last second."""
    return ts.astimezone(UTC).replace(tzinfo=None).isoformat(timespec="microseconds")


def run_statements(server_id: int, start: datetime, through: datetime | None) -> str:
    """The Statements tab from a run's start to `through` (reads.run_statements_through: the end of the digest
    read holding the run's end); open-ended while the run goes on."""
    return link("dashboards:statements", server_id, query={"from": exact_param(start), **(
        {"to": exact_param(through)} if through is not None else {})})


def dips_statements(server_id: int, dips: list[tuple[datetime, datetime]], interval: int) -> list[str]:
    """The Statements tab over each dip (start, end) and one statements interval after it; the path reversed
    once (a week can hold a hundred dips).

    The tab sums the digest reads that end in its range; digests are read every `interval` seconds, so the
    read that covers a dip's last second ends at most one interval after it.
    """
    path = link("dashboards:statements", server_id)
    after = timedelta(seconds=interval)
    return [f"{path}?{urlencode({'from': exact_param(start), 'to': exact_param(end + after)})}"
            for start, end in dips]


def topwaits_csv(server_id: int, tr: TimeRange, second: TimeRange | None = None, conditions: bool = False,
                 client: bool = False) -> str:
    """The top waits CSV of an interval; with a second one, the before/after table (from2/to2).

    conditions=True ranks wait/synch/cond/* too, client=True client time; the defaults are the page's. Both
    are written out, so the link says how it ranks. Times to the microsecond: a run's window starts between
    two polls, and a time cut to the second may take in the poll before it.
    """
    query = {"server": server_id, "from": exact_param(tr.start), "to": exact_param(tr.end)}
    if second is not None:
        query.update({"from2": exact_param(second.start), "to2": exact_param(second.end)})
    query.update({"cond": "1" if conditions else "0", "client": "1" if client else "0"})
    return link("export-topwaits", query=query)
