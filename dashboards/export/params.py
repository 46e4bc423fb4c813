"""Reading an export's parameters (from a query string or the command line)."""

import math
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from dashboards import timerange
from dashboards.analysis.step_window import Window
from dashboards.analysis.topwaits import CLIENT_PARAM, CONDITION_PARAM
from dashboards.export.csv_safe import iso_utc
from dashboards.export.grid import nice_step, step_grid, whole_buckets, whole_rows
from dashboards.query_params import MAX_WARMUP, toggle_value, warmup_param
from dashboards.reports.run_links import series_range
from dashboards.timerange import PRESETS, BadTime, parse_time_strict
from dashboards.url_ids import parse_id
from servers.models import Run, Server

CHART_POINTS = 1200  # a chart's default width in points: the CSV of a chart matches it
# Any range a page shows can be exported from its CSV link (timerange: 800 days back to tomorrow).
MAX_SPAN = timerange.OLDEST + timerange.NEWEST
# The store reads a day before a range and past its end: far from datetime's year 1 and 9999.
EARLIEST, LATEST = datetime(1970, 1, 1, tzinfo=UTC), datetime(3000, 1, 1, tzinfo=UTC)


class ExportError(ValueError):
    """A parameter the user must fix; the message says which and how."""


@dataclass(frozen=True)
class SeriesExport:
    servers: list[Server]
    metrics: list[str]
    start: datetime
    end: datetime
    step: float | None  # seconds per row; None: one row per poll interval
    mode: str = "rate"  # "rate" or "delta"
    minmax: bool = False  # each bucket's min and max columns too
    seconds: bool = False  # each counter's seconds covered per row too (its rate = sum of deltas / them)

    @property
    def full(self) -> bool:
        return self.step is None


def parse_time(text: str | None, name: str) -> datetime:
    """timerange.parse_time_strict, its error an ExportError (a 400 that names the parameter)."""
    try:
        ts = parse_time_strict(text, name)
    except BadTime as error:
        raise ExportError(str(error)) from None
    if not EARLIEST <= ts < LATEST:
        raise ExportError(f"{name}={text!r} is outside the years {EARLIEST.year}-{LATEST.year - 1} (UTC) "
                          "an export reads: no data exists there")
    return ts


def parse_range(
    start_text: str | None, end_text: str | None, suffix: str = "", preset: str | None = None,
    future: bool = False,
) -> tuple[datetime, datetime]:
    """from/to; or a live preset (range=1h, as the dashboards' links carry) ending now.

    A range starting after now is refused (no sample exists there yet) unless future= (marks may be set ahead);
    else a range ending after now ends at now, as the charts do: no row, file name or figure is past the newest poll.
    """
    now = datetime.now(UTC)
    if preset and not start_text:
        if preset not in PRESETS:
            raise ExportError(f"range={preset!r}: use one of {', '.join(PRESETS)}, or from and to")
        return now - PRESETS[preset], now
    start = parse_time(start_text, "from" + suffix)
    end = parse_time(end_text, "to" + suffix) if end_text or not start_text else now
    if end <= start and not end_text:  # "to must be after from" named a to the user never gave
        raise ExportError(f"from{suffix}={start_text!r} is not before now, where to{suffix} ends when not given: "
                          f"give a to{suffix} after it, or an earlier from{suffix}")
    if start >= now and end > start and not future:
        raise ExportError(f"from{suffix}={start_text!r} is not before now: no data exists from there on yet; "
                          f"give an earlier from{suffix}")
    if end <= start:
        raise ExportError(f"to{suffix} must be after from{suffix}")
    if end - start > MAX_SPAN:
        raise ExportError(f"the range is longer than {MAX_SPAN.days} days: export it in parts")
    return start, end if future else min(end, now)


def find_servers(values: list[str]) -> list[Server]:
    """Servers by id or name; a value may list several, comma separated.

    A name that itself contains a comma is matched whole before splitting.
    """
    found: list[Server] = []
    for value in values:
        parts = [value] if _lookup(value) else [p for p in value.split(",") if p.strip()]
        for part in parts:
            server = _lookup(part)
            if server is None:
                raise ExportError(f"server {part!r} is unknown: give a name or id from /servers/")
            if server not in found:
                found.append(server)
    if not found:
        raise ExportError("server is missing: give a server name or id (several separated by commas)")
    return found


def _lookup(text: str) -> Server | None:
    text = text.strip()
    if "\x00" in text:
        return None  # no name holds one, and PostgreSQL refuses the text outright
    server = Server.objects.filter(name=text).first()
    pk = parse_id(text)
    if server is None and pk is not None:
        server = Server.objects.filter(pk=pk).first()
    return server


# What a yes/no parameter (full, minmax, bom, ...) accepts; anything else is refused, not read as "no".
FLAG_VALUES = {"1": True, "true": True, "yes": True, "on": True, "0": False, "false": False, "no": False,
               "off": False, "": False}
MAX_WIDTH = 100_000  # w: a chart's width in points; the CSV's rows follow it (far above any screen)


def parse_flag(text: str | None, name: str) -> bool:
    """A yes/no parameter: absent or empty is no."""
    if text is None:
        return False
    value = FLAG_VALUES.get(text.strip().lower())
    if value is None:
        raise ExportError(f"{name}={text!r}: use {name}=1 (or true, yes, on) or {name}=0 (or false, no, off)")
    return value


# The waits page's toggles: cond=1 ranks condition waits, client=1 client time; absent, empty or 0 leaves them
# out, the page's default. The CSV reads them as the page does (query_params.toggle_value), so one URL gives one
# set of figures.
TOGGLE_WORDS = {CONDITION_PARAM: "rank condition waits (wait/synch/cond/*) with the others",
                CLIENT_PARAM: "rank client time with the waits"}


def parse_wait_toggle(text: str | None, name: str) -> bool:
    """cond= or client= of the top-waits and fleet exports; a value the page would not read as 1 or 0 is refused (a file
    has no place for the page's note), never read as "no"."""
    raw = text or ""
    value = toggle_value(raw)
    if value is None:
        raise ExportError(f"{name}={raw[:40]!r}: use {name}=1 to {TOGGLE_WORDS[name]}, or {name}=0 (or leave it "
                          "out) to leave them out, as the waits page does by default")
    return value


def parse_width(text: str | None, name: str = "w") -> int | None:
    """w: the chart width in points a CSV of a chart follows (its row step); None when not given."""
    if text is None or not text.strip():
        return None
    width = parse_id(text.strip())
    if width is None or not 1 <= width <= MAX_WIDTH:
        raise ExportError(f"{name}={text!r}: give the chart's width in points, a whole number from 1 to "
                          f"{MAX_WIDTH:,} (it sets the rows' step), or leave it out")
    return width


def split_list(values: list[str]) -> list[str]:
    return [p.strip() for v in values for p in v.split(",") if p.strip()]


def parse_step(
    text: str | None, start: datetime, end: datetime, full: bool, points: str | None = None,
    interval: float = 0,
) -> float | None:
    """Seconds per row: step; or a round step near a chart's bin (w=, as its page sends), None
    (one row per poll) when that bin is no wider than the poll interval or leaves no whole row."""
    if full:
        return None
    if not text:
        count = parse_width(points) or CHART_POINTS
        step: float = nice_step((end - start).total_seconds() / count)
        return None if step <= interval or not whole_rows(start, end, step) else step
    try:
        step = float(text)
    except ValueError:
        raise ExportError(f"step={text!r} is not a number of seconds") from None
    if not math.isfinite(step) or step <= 0:
        raise ExportError(f"step must be a positive number of seconds, not {text!r}")
    if step != int(step):
        raise ExportError(f"step={text!r}: give a whole number of seconds (rows start on whole seconds, "
                          "multiples of the step from 1970-01-01)")
    check_step_fits(step, start, end)
    return step


def check_step_fits(step: float, start: datetime, end: datetime) -> None:
    """Refused rather than clamped: rows align to the step and only those wholly inside the range are
    written, so a step longer than the range, or an unaligned range shorter than two steps, gives none."""
    seconds = (end - start).total_seconds()
    if step > seconds:
        raise ExportError(f"step={step:g} is longer than the range ({seconds:g} s): "
                          f"give a step of at most {seconds:g} seconds, or a longer range")
    if not whole_rows(start, end, step):
        g = step_grid(start, step)
        first = g.start_of(whole_buckets(g, start, end)[0])
        raise ExportError(f"step={step:g} leaves no whole row in this range: rows start on multiples of the step "
                          f"and a row reaching outside the range is left out (the first would be {iso_utc(first)} "
                          f"to {iso_utc(first + timedelta(seconds=step))}): give a longer range, or a smaller step")


def series_export(
    servers: list[str], metrics: list[str], start: str | None, end: str | None,
    step: str | None = None, mode: str | None = None, full: bool = False,
    preset: str | None = None, points: str | None = None, run: str | None = None, minmax: bool = False,
    seconds: bool = False,
) -> SeriesExport:
    """Validate everything an export of series needs, or raise ExportError.

    run=<id> stands for its server and its start and end (each may still be given).
    """
    if run:
        given = find_runs([run])[0]
        servers = servers or [str(given.server_id)]
        first_row, last_row = run_rows(given)
        start = start or first_row.isoformat()
        end = end or last_row.isoformat()
    parse_width(points)  # refused even where a step or full=1 makes it unused
    mode = mode or "rate"
    if mode not in ("rate", "delta"):
        raise ExportError(f"mode={mode!r}: use rate (per second, the default) or delta (per interval)")
    names = split_list(metrics)
    if not names:
        raise ExportError("metrics is missing: give names or patterns such as tps,wait.time_ps:*")
    if any("\x00" in name for name in names):  # PostgreSQL refuses the text outright: a 500, not "no such metric"
        raise ExportError(f"metrics={','.join(names)!r} holds a NUL byte, which no metric name has")
    first, last = parse_range(start, end, preset=preset)  # ending at now at the latest: no row labelled past it
    found = find_servers(servers)
    step_s = parse_step(step, first, last, full, points, min(s.poll_interval for s in found))
    if step and step_s is not None:
        check_step(step_s, found)
    return SeriesExport(found, names, first, last, step_s, mode, minmax, seconds)


def run_rows(run: Run) -> tuple[datetime, datetime]:
    """from and to holding exactly the run's polls (those whose interval lies inside it), as the run report's
    CSV links do: its start alone would take in the poll that began before the run."""
    end = run.ended_at or datetime.now(UTC)
    return series_range(run.server, Window(run.started_at, end))


def check_step(step: float, servers: list[Server]) -> None:
    """A step asked for below the poll interval has no data that fine: say so rather than invent rows."""
    finest = min(servers, key=lambda s: s.poll_interval)
    if step < finest.poll_interval:
        raise ExportError(f"step={step:g} is below the poll interval of {finest.name} ({finest.poll_interval} s): "
                          f"use step={finest.poll_interval} or more, or full=1 for every poll")


def find_runs(values: list[str]) -> list[Run]:
    """Runs by id, in the order given (the first is the reference for ratios)."""
    ids = split_list(values)
    if not ids:
        raise ExportError("runs is missing: give run ids separated by commas, e.g. runs=3,4")
    if any(parse_id(i) is None for i in ids):
        raise ExportError(f"runs={','.join(ids)!r}: give run ids (numbers) separated by commas")
    runs = Run.objects.select_related("server").in_bulk([int(i) for i in ids])
    missing = [i for i in ids if int(i) not in runs]
    if missing:
        raise ExportError(f"run {', '.join(missing)} is unknown: see /runs/ for the ids")
    return [runs[int(i)] for i in dict.fromkeys(ids)]


def parse_warmup(get: Mapping) -> int | None:
    """?warmup=N seconds trimmed from every run, None (each run's own warm-up) when absent: one the pages would
    not use is refused, as the compare page says it ignores it, never a file of other figures than asked for."""
    warmup, raw = warmup_param(get), (get.get("warmup") or "").strip()
    if raw and warmup is None:
        raise ExportError(f"warmup={raw!r} is not a whole number of seconds from 0 to {MAX_WARMUP:,}: give one, "
                          "or leave warmup out to trim each run's own warm-up")
    return warmup
