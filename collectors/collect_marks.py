"""Marks of a running collection (annotations, runs' starts and ends): a file beside it that any process
may append to (`collect_mark`, the collector's local API), copied into the collection by the collector.
"""

import json
import os
import time
from pathlib import Path

from collectors import collect_file
from servers.names import api_text_problem


class MarkError(ValueError):
    """A mark that says nothing, or more than one thing, or holds a control character."""


# What each mark holds, as the API names it (docs/api.md): its checks are the API's field's (api_text_problem: a
# run's name holds no control character, an annotation's text may hold tabs and line breaks).
SAID = {"annotate": "text", "run_start": "name", "run_end": "name"}


def mark_problem(annotate: str = "", run_start: str = "", run_end: str = "") -> str | None:
    """Why a mark cannot be kept (None when it can): what it holds went raw into runs.csv and annotations.csv."""
    given = {"annotate": annotate, "run_start": run_start, "run_end": run_end}
    return next((problem for key, text in given.items() if (problem := api_text_problem(SAID[key], text))), None)


def recorded_mark_problem(record: dict) -> str | None:
    """mark_problem() of a mark read back from a file (which may have been edited by hand), its run's fields
    included: what the collector's API refuses is not loaded from a file either."""
    given = {key: str(record[key]) for key in SAID if record.get(key)}
    fields = record.get("fields")
    texts = fields.items() if isinstance(fields, dict) else ()
    return mark_problem(**given) or next(
        (problem for key, value in texts if isinstance(value, str) and (problem := api_text_problem(key, value))), None)


def marks_path(path: Path) -> Path:
    """The file `collect mark` appends to and a running collection copies into its own file."""
    return path.with_name(path.name + ".marks")


def mark(path: Path, annotate: str = "", run_start: str = "", run_end: str = "") -> dict:
    """Ask the collection writing to path to mark this moment (an annotation, a run's start or end)."""
    return append(path, mark_record(time.time(), annotate, run_start, run_end))


def append(path: Path, entry: dict) -> dict:
    """A mark to the marks file of the collection writing to path."""
    line = (json.dumps(entry) + "\n").encode()
    fd = os.open(marks_path(path), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        os.write(fd, line)  # one small O_APPEND write: never interleaved with another mark
        os.fsync(fd)
    finally:
        os.close(fd)
    return entry


def mark_record(at: float, annotate: str = "", run_start: str = "", run_end: str = "") -> dict:
    given = {"annotate": annotate, "run_start": run_start, "run_end": run_end}
    given = {k: v.strip() for k, v in given.items() if v and v.strip()}
    if len(given) != 1:
        raise MarkError("a mark is one of: an annotation text, a run to start, a run to end")
    if problem := mark_problem(**given):
        raise MarkError(problem)
    return {"type": "mark", "at": at, **given}


class MarkInbox:
    """The marks file, read from where the collection last stopped reading it."""

    def __init__(self, path: Path):
        self.path = path
        self.offset = path.stat().st_size if path.exists() else 0  # marks made before this collection: done

    def copy(self, writer: collect_file.Writer) -> int:
        if not self.path.exists():
            return 0
        with self.path.open("rb") as f:
            f.seek(self.offset)
            data = f.read()
        complete = data[:data.rfind(b"\n") + 1]
        self.offset += len(complete)
        count = 0
        for line in complete.splitlines():
            try:
                entry = json.loads(line)
            except ValueError:
                continue  # not written by `collect mark`
            if isinstance(entry, dict) and entry.get("type") == "mark":
                writer.write(entry)
                count += 1
        return count
