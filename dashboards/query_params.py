"""The query parameters the pages read, parsed in one place (times: timerange.py; the CSV exports: export/params.py).

A page shows what it can: a value it cannot use as given comes back with a note the page says,
never silently replaced; a value that leaves nothing to show raises BadParam, a 400 naming the parameter.
"""

import difflib
import math
from collections.abc import Iterable, Mapping
from datetime import datetime

from django.http import HttpRequest, QueryDict

from alerts.kind_wording import NOT_A_HISTORY_LENGTH
from dashboards.analysis.scalability import DEFAULT_KNEE
from dashboards.analysis.stability import DEFAULT_DIP_FRACTION
from dashboards.analysis.statements import DEFAULT_ORDER, MONITORING_PARAM, ORDERS
from dashboards.analysis.topwaits import CLIENT_PARAM, CONDITION_PARAM
from dashboards.timerange import TimeRange, parse_time_lenient, read_range
from dashboards.url_ids import parse_id

MIN_DIP, MAX_DIP = 0.05, 0.95  # the dip form's bounds (stability.html): at 1 half the line would be a "dip"
MAX_WARMUP = 7 * 86400  # seconds: the longest warm-up a run may declare (the API) or a page trim (warmup=)
MAX_THREADS = 1_000_000  # the most client threads a run may declare (the API, the runs page)


class BadParam(ValueError):
    """A parameter the page cannot use at all: answered 400 with this message, which names it."""


# Yes/no toggles: "1" turns one on, anything else leaves it off (the pages' checkboxes send 1).
def conditions_param(get: Mapping) -> tuple[bool, str | None]:
    """The toggle "include condition waits", kept in the URL as cond=1 (default: left out), and a note for a
    value that is neither 1 nor 0: cond=7 was read as "off" unsaid."""
    return toggle_param(get, CONDITION_PARAM, "1 (rank condition waits with the others) or 0 (leave them out): "
                                              "they are left out")


def client_param(get: Mapping) -> tuple[bool, str | None]:
    """?client=1 ranks client time with the waits; 0 or absent leaves it apart; anything else is said."""
    return toggle_param(get, CLIENT_PARAM, "1 (rank client time with the waits) or 0 (show it apart)")


def monitoring_param(get: Mapping) -> tuple[bool, str | None]:
    """?monitoring=1 ranks the monitoring reads with the other statements; 0 or absent leaves them apart."""
    return toggle_param(get, MONITORING_PARAM, "1 (rank the monitoring reads with the other statements) or 0 (show "
                                               "them apart)")


def toggle_param(get: Mapping, name: str, choices: str) -> tuple[bool, str | None]:
    """A checkbox kept in the URL: 1 on; 0, empty or absent off; anything else off, with a note of the `choices`."""
    raw = get.get(name, "")
    value = toggle_value(raw)
    if value is not None:
        return value, None
    return False, f"{name}={raw[:40]!r} must be {choices}"


def toggle_value(raw: str) -> bool | None:
    """A checkbox's value as the pages read it: "1" on, "0" or empty off; None for anything else."""
    return {"": False, "0": False, "1": True}.get(raw)


def log_scale(get: Mapping) -> bool:
    """The explorer's log=1: a logarithmic y axis."""
    return get.get("log") == "1"


def int_param(get: Mapping, name: str, default: int, lo: int, hi: int, shown: str) -> tuple[int, str | None]:
    """A whole number from lo to hi, and what was wrong with the one given.

    Unreadable gives the default, out of bounds the nearer bound; shown says what the value means
    on the page ("the top {} waits"), so the note can say what is shown instead.
    """
    raw = get.get(name, "").strip()
    if not raw:
        return default, None  # absent, or a form's empty field
    try:
        value = int(raw)
    except ValueError:
        return default, f"{name}={raw!r} is not a whole number: showing {shown.format(default)} instead."
    kept = max(lo, min(hi, value))
    if kept != value:
        return kept, f"{name}={raw!r} is outside {lo}-{hi}: showing {shown.format(kept)} instead."
    return value, None


def float_param(get: Mapping, name: str, default: float) -> float:
    try:
        value = float(get.get(name, default))
    except ValueError:
        return default
    return value if math.isfinite(value) else default


def threshold_param(get: Mapping, default: float) -> tuple[float, str | None]:
    """The purge page's threshold, or the default and why the one given is refused."""
    raw = get.get("threshold", "").strip()
    if not raw:
        return default, None
    value = float_param(get, "threshold", -1)
    if value <= 0:
        return default, f"threshold={raw!r} {NOT_A_HISTORY_LENGTH}: using {default:,.0f}."
    return value, None


def dip_param(get: Mapping) -> tuple[float, str | None]:
    """The stability page's dip fraction of the median, and what was wrong with the one given."""
    raw = get.get("dip", "").strip()
    if not raw:
        return DEFAULT_DIP_FRACTION, None
    value = float_param(get, "dip", math.nan)  # NaN back for text, nan and inf alike
    if math.isnan(value):
        return DEFAULT_DIP_FRACTION, (f"dip={raw!r} is not a fraction of the median such as 0.5:"
                                      f" using {DEFAULT_DIP_FRACTION} instead.")
    kept = max(MIN_DIP, min(MAX_DIP, value))
    if kept != value:
        return kept, f"dip={raw!r} is outside {MIN_DIP}-{MAX_DIP} of the median: using {kept} instead."
    return value, None


def warmup_param(get: Mapping) -> int | None:
    """?warmup=N seconds for every run compared; None (each run's own) when absent or unreadable."""
    warmup = parse_id(get.get("warmup"))
    return warmup if warmup is not None and warmup <= MAX_WARMUP else None


def warmup_problem(get: Mapping, warmup: int | None) -> str | None:
    """What is wrong with ?warmup= when warmup_param could not use it (the report and CSV read it the same way)."""
    raw = (get.get("warmup") or "").strip()
    if not raw or warmup is not None:
        return None
    return (f"warmup={raw!r} is not a whole number of seconds from 0 to {MAX_WARMUP:,}:"
            " trimming each run's own warm-up instead.")


def knee_threshold(get: Mapping) -> float:
    """?knee=50: the share (%) of the first level's TPS per thread a step up must still gain."""
    raw = get.get("knee", "")
    if raw == "":
        return DEFAULT_KNEE
    try:
        value = float(raw)
    except ValueError:
        raise BadParam(f"knee={raw!r}: give a percentage such as 50") from None
    if not 0 < value <= 100:
        raise BadParam(f"knee={raw}: give a percentage above 0 and at most 100, such as 50")
    return value / 100


def order_param(get: Mapping, default: str = DEFAULT_ORDER) -> tuple[str, str | None]:
    """The Statements tab's ranking (order=), and what was wrong with the one given."""
    raw = get.get("order", "").strip()
    if not raw or raw in ORDERS:
        return raw or default, None
    return default, f"order={raw!r} is not one of {', '.join(ORDERS)}: ranking by {ORDERS[default][0]} instead."


WAIT_CHARS = 200  # a wait event's name is at most 128 characters (performance_schema's EVENT_NAME)


def wait_event_param(get: Mapping) -> str:
    """The wait event the Statements tab was opened for (wait=, from the waits page), or ""; only said, as text."""
    return get.get("wait", "").strip()[:WAIT_CHARS]


def runs_sort(get: Mapping, sorts: Mapping, default: str) -> str:
    """The runs table's sort= (a key of sorts, "-" first to reverse); anything else falls back to the default."""
    raw = get.get("sort") or default
    return raw if raw.lstrip("-") in sorts else default


def sort_problem(get: Mapping, sorts: Mapping, default: str) -> str | None:
    """What is wrong with ?sort=, said on the page whose table falls back to its default order."""
    raw = get.get("sort") or default
    if raw.lstrip("-") in sorts:
        return None
    return (f"sort={raw[:40]!r} is not a column of this table ({', '.join(sorted(sorts))}, '-' first to reverse):"
            f" sorted by {default}.")


def page_number(get: Mapping, pages: int) -> int:
    """?page=N of a list of `pages` pages."""
    asked = get.get("page", "1")
    number = parse_id(asked)  # 5,000 digits pass isdigit() but not int()
    if number is None or not 1 <= number <= pages:
        raise BadParam(f"page: a whole number from 1 to {pages}, not {asked[:40]!r}")
    return number


def ids_in(values: list[str]) -> tuple[list[int], list[str]]:
    """The ids among values, in order, and the values that are not ids."""
    ids = [parse_id(v) for v in values]
    return [i for i in ids if i is not None], [v for v, i in zip(values, ids, strict=True) if i is None]


def listed_ids(get: QueryDict, name: str) -> tuple[list[int], list[str]]:
    """name=1,2 or name=1&name=2: the ids in the order given, and the parts that are not ids.

    Empty parts (runs=1,,2, a trailing comma) are no mistake.
    """
    raw = ",".join(get.getlist(name))
    return ids_in([p.strip() for p in raw.split(",") if p.strip()])


def server_param(get: Mapping) -> tuple[str, int | None]:
    """?server= as given (a form keeps it), and the server id it names (None: absent or not an id)."""
    raw = get.get("server", "")
    return raw, parse_id(raw)


AB_KEYS = ("a", "b", "a_label", "b_label")


def ab_asked(get: QueryDict) -> bool:
    """Whether the compare page's address names A/B groups (a=, b=, a_label=, b_label=)."""
    return any(get.getlist(key) and any(v.strip() for v in get.getlist(key)) for key in AB_KEYS)


def ab_label(get: Mapping, side: str) -> tuple[str | None, str | None]:
    """A side's label (a_label=, b_label=), or None and why it cannot be one."""
    label = get.get(f"{side}_label", "").strip()
    if "\x00" in label:
        return None, f"{side}_label holds a NUL byte, which no label has"
    return label, None


def wait_param(get: Mapping) -> tuple[str, str | None]:
    """The wait event asked for (wait=), "" for the page's own choice; one holding a NUL byte (no instrument's
    name does, and the store cannot be asked for it) is left out with a note."""
    wait = get.get("wait", "")
    if "\x00" in wait:
        return "", "wait= holds a NUL byte, which no wait event's name has: the runs' top wait is drawn"
    return wait, None


def sweep_name(name: str) -> str:
    """A sweep name as given, refused if it holds a NUL byte: no sweep's name does (as for server= in the export)."""
    if "\x00" in name:
        raise BadParam(f"sweep={name!r} holds a NUL byte, which no sweep name has: pick a sweep from the list")
    return name


def sweep_names(get: QueryDict) -> list[str]:
    """The sweeps picked (sweep=A&sweep=B), blanks left out."""
    return [sweep_name(n) for n in get.getlist("sweep") if n.strip()]


# What a page writes back of its address (a form's hidden inputs, a field's value, a link that keeps the view):
# never a NUL character. No parameter takes one, and written into the page it is no text an HTML parser keeps
# (it reads U+FFFD, or drops it), so the form would send back something else than was given.
def echoable(name: str, value: str) -> bool:
    """Whether a parameter may be written back into the page: neither its name nor its value holds a NUL."""
    return "\x00" not in name and "\x00" not in value


def echo(value: str) -> str:
    """A value as a form field shows it again: "" for one holding a NUL (dropped_note says so)."""
    return value if "\x00" not in value else ""


def kept_params(get: QueryDict, drop: Iterable[str] = ()) -> list[tuple[str, str]]:
    """Every value of every parameter but those in drop, for a form's hidden inputs to send again; none holding a
    NUL (dropped_note says so)."""
    return [(k, v) for k, vs in get.lists() if k not in drop for v in vs if echoable(k, v)]


def kept_query(get: QueryDict, drop: Iterable[str] = ()) -> QueryDict:
    """kept_params as a query a link may change (mutable)."""
    kept = QueryDict(mutable=True)
    for name, value in kept_params(get, drop):
        kept.appendlist(name, value)
    return kept


def dropped_note(get: QueryDict) -> str | None:
    """What every page says of the parameters it leaves out of its forms and links for a NUL character."""
    names = sorted({k.replace("\x00", "%00") for k, vs in get.lists() for v in vs if not echoable(k, v)})
    if not names:
        return None
    listed = ", ".join(f"{name}=" for name in names)
    return (f"{listed} {'holds' if len(names) == 1 else 'hold'} a NUL character (%00), which no parameter takes: "
            "left out of this page's forms and links.")


def dropped_params(request: HttpRequest) -> dict:
    """A context processor: the note of dropped_note on every page (base.html)."""
    return {"dropped_params": dropped_note(request.GET)}


def unknown_params(get: Mapping, known: Iterable[str]) -> list[str]:
    """A note for each parameter the page does not read: a misspelt one (servers=) is otherwise ignored silently,
    and the page looks as if its value had matched nothing."""
    known = sorted(known)
    notes = []
    for name in get:
        if name not in known:
            close = difflib.get_close_matches(name, known, n=1)
            notes.append(f"{name}= is not a parameter of this page, ignored"
                         + (f" (did you mean {close[0]}=?)" if close else ""))
    return notes


def metric_names(get: QueryDict) -> list[str]:
    """The explorer's metrics: those selected (metric=) and those typed (pattern=, comma separated, '*' allowed)."""
    typed = [m.strip() for m in get.get("pattern", "").split(",") if m.strip()]
    return list(dict.fromkeys(get.getlist("metric") + typed))


def second_interval(get: Mapping, now: datetime) -> tuple[TimeRange | None, str | None]:
    """The waits page's interval B (from2/to2), or what is wrong with it."""
    raw_from, raw_to = get.get("from2") or "", get.get("to2") or ""
    if not raw_from and not raw_to:
        return None, None
    if not (parse_time_lenient(raw_from) and parse_time_lenient(raw_to)):
        return None, f"interval B needs two times such as 2026-01-31T12:00 (got from {raw_from!r}, to {raw_to!r})."
    tr_b, problem = read_range({"from": raw_from, "to": raw_to}, now)
    return tr_b, problem and f"Interval B: {problem}"
