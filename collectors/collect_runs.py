"""The runs a collection file marks: each run's start paired with its own end, in the order the file holds them.

A run marked again under the same name after it ended, or by a collection resumed into the same file
(`collect ... --run NAME` run again), is a run of its own: one run across the gap would count in
its first poll after the gap everything the server did while nobody collected. The later one is
named after its start, e.g. "nightly (resumed 2026-11-26 07:55:07 UTC)".
"""

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime

NAME_LENGTH = 200  # Run.name
RUN_TEXTS = {"notes": 100_000, "sweep": 200, "label": 200, "command": 100_000, "tool_summary": 100_000}
RUN_NUMBERS = {"concurrency": 1, "warmup_seconds": 0}  # the least each may be
MOST = 2**31 - 1  # the most any may be (an integer column)


def whole_number_problem(key: str, value: object) -> str:
    """Why a JSON value is no whole number ("" when it is one), in the words of both APIs (the server's and the
    collector's, docs/api.md): a JSON integer only, never "4" (a string) or true (1 to Python)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return ""
    sent = json.dumps(value)
    sent = sent if len(sent) <= 60 else sent[:57] + "..."
    return f"'{key}' must be a whole number (a JSON number such as 4, not a string or true/false), got {sent}"


@dataclass(frozen=True)
class MarkSeen:
    """A mark record as the file holds it, with what preceded it there."""

    record: dict
    last_poll: float | None  # the time of the file's last poll before it
    collection: int  # which collection process wrote it (end records and resumed starts count them)


@dataclass
class RunSpan:
    name: str  # as stored: the name marked, with the start's time after the first run of that name
    start: float
    end: float | None = None  # None: not ended (yet)
    collection: int = 0
    fields: dict = field(default_factory=dict)  # what its marks said of it (notes, concurrency, sweep...)
    open: bool = True


def runs_of(marks: list[MarkSeen]) -> list[RunSpan]:
    """The runs of the file's marks, in the order they started; an open one is ended by the caller."""
    runs: list[RunSpan] = []
    latest: dict[str, RunSpan] = {}  # by the name marked
    for seen in marks:
        entry = seen.record
        if entry.get("run_start"):
            marked = str(entry["run_start"])[:NAME_LENGTH]
            run = started(latest.get(marked), marked, seen)
            if run is not None:
                runs.append(run)
                latest[marked] = run
            merge(latest[marked], entry)
        elif entry.get("run_end"):
            run = latest.get(str(entry["run_end"])[:NAME_LENGTH])
            if run is not None:  # the end of a run this file never started: nothing to end
                run.end, run.open = float(entry["at"]), False
                merge(run, entry)
    return runs


def started(before: RunSpan | None, marked: str, seen: MarkSeen) -> RunSpan | None:
    """The run a start mark begins; None where it restates the run its collection has open (a script's retry)."""
    when = float(seen.record["at"])
    if before is None:
        return RunSpan(marked, when, collection=seen.collection)
    resumed = seen.collection != before.collection
    if before.open and not resumed:
        return None
    if before.open:  # its collection was killed: it ended at its last poll
        before.end, before.open = max(before.start, seen.last_poll or before.start), False
    return RunSpan(later_name(marked, when, resumed), when, collection=seen.collection)


def later_name(marked: str, when: float, resumed: bool) -> str:
    suffix = f" ({'resumed' if resumed else 'started'} {datetime.fromtimestamp(when, UTC):%Y-%m-%d %H:%M:%S} UTC)"
    return marked[:NAME_LENGTH - len(suffix)] + suffix


def merge(run: RunSpan, entry: dict) -> None:
    run.fields.update(run_fields(entry.get("fields")))


def run_fields(given) -> dict:
    """A run's fields from a mark, those of the right type only (the file is not trusted)."""
    if not isinstance(given, dict):
        return {}
    out = {k: v[:RUN_TEXTS[k]] for k, v in given.items() if k in RUN_TEXTS and isinstance(v, str)}
    out.update({k: v for k, v in given.items() if k in RUN_NUMBERS and isinstance(v, int)
                and not isinstance(v, bool) and RUN_NUMBERS[k] <= v <= MOST})
    return out
