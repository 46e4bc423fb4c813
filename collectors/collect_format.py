"""A poll's raw readings as plain JSON, and back: the records of a collection file (docs/collect.md).

What the delta engine needs of a reading is written as read (the running totals, which names are
counters, how the source's resets show), so that loading the file replays the same engine on the
same inputs. A reading's derive (node_exporter's CPU percentages) is a partial of a function of a
registered source's module: written as its name and arguments, and resolved at load only among
those modules (a file never names code to run elsewhere). The statement digests' reading keeps
only its raw read (format 2): the load applies it to the replayed state as the poll did.
"""

import importlib
from functools import partial

from collectors import registry
from collectors.connection import ServerInfo
from collectors.delta import RawReading, Snapshot
from collectors.results import PollResult
from collectors.source import Reading
from collectors.sources import statements


class BadRecord(ValueError):
    """A record of the file does not hold what its format version says."""


def poll_record(result: PollResult) -> dict:
    """One poll as a record: its readings, and the sources that failed (their errors, for the load's report)."""
    readings = [reading_dict(s.name, s.raw, result.snapshots.get(s.name)) for s in result.sources if s.raw is not None]
    failed = [{"source": s.name, "error": s.error, "unavailable": s.unavailable} for s in result.sources if not s.ok]
    record = {"type": "poll", "at": result.started_at.timestamp(), "readings": readings, "failed": failed}
    if result.info is not None:
        record["info"] = info_dict(result.info)
    if result.connect_error:
        record["connect_error"] = result.connect_error
    return record


def reading_dict(source: str, raw: RawReading, snapshot: Snapshot | None) -> dict:
    """A reading's entry; next_boot is the snapshot's boot time where the poll changed it after a restart."""
    r = raw.reading
    out = {"source": source, "read_at": raw.read_at, "boot": raw.boot, "values": dict(r.values),
           "counters": sorted(r.counters)}
    next_boot = snapshot.boot if snapshot is not None and snapshot.boot != raw.boot else None
    optional = {"next_boot": next_boot, "note": r.note, "absent_is_zero": r.absent_is_zero,
                "reset_markers": list(r.reset_markers), "reset_together": r.reset_together,
                "resets_alone": list(r.resets_alone),
                "aliases": {k: list(v) for k, v in r.aliases.items()}, "stored_on_change": r.stored_on_change,
                "reading_boot": r.boot, "derive": derive_spec(r.derive), "unstored": sorted(r.unstored),
                "extra": file_extra(source, r.extra)}
    out.update({k: v for k, v in optional.items() if v})
    return out


def file_extra(source: str, extra: dict) -> dict:
    """What a reading's extra keeps in the file: the statement digests' raw read only (the rest is derived)."""
    if source == statements.NAME:
        return {"raw": extra["raw"].as_json()}
    return extra


def extra_of_file(source: str, extra: dict) -> dict:
    if source == statements.NAME:
        return {"raw": statements.RawRead.of_json(extra["raw"])}
    return extra


def derive_spec(fn) -> dict | None:
    if fn is None:
        return None
    if not isinstance(fn, partial) or fn.keywords:
        raise TypeError(f"a reading's derive must be a partial of a source module's function, not {fn!r}")
    return {"function": f"{fn.func.__module__}:{fn.func.__name__}", "args": list(fn.args)}


def reading_of(data: dict) -> RawReading:
    """The reading of a record's entry; BadRecord if it is not one."""
    try:
        reading = Reading(
            values=dict(data["values"]), counters=frozenset(data["counters"]), note=data.get("note", ""),
            absent_is_zero=bool(data.get("absent_is_zero")), reset_markers=tuple(data.get("reset_markers", ())),
            reset_together=bool(data.get("reset_together")),
            resets_alone=tuple(data.get("resets_alone", ())),
            aliases={k: tuple(v) for k, v in data.get("aliases", {}).items()},
            stored_on_change=bool(data.get("stored_on_change")), boot=data.get("reading_boot"),
            derive=derive_of(data.get("derive")), unstored=frozenset(data.get("unstored", ())),
            extra=extra_of_file(str(data["source"]), dict(data.get("extra", {}))))
        check_reading(reading)
        return RawReading(reading, float(data["read_at"]), number_or_none(data.get("boot")),
                          number_or_none(data.get("next_boot")))
    except (KeyError, TypeError, AttributeError) as exc:
        raise BadRecord(f"a reading lacks or misstates {exc}") from None


HOLDER_TEXTS = ("key", "isolation")
HOLDER_OPTIONAL_TEXTS = ("user", "host", "statement", "state", "command")


def check_reading(reading: Reading) -> None:
    """What the delta engine and the holder rows take for granted: BadRecord if a file says otherwise."""
    values = reading.values
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values.values()):
        raise BadRecord("a reading's values are not all numbers")
    if not reading.counters <= values.keys():
        raise BadRecord("a reading names counters it has no value for")
    names = [*reading.reset_markers, *reading.resets_alone, *reading.unstored,
             *(n for c in reading.aliases.values() for n in c)]
    if not all(isinstance(n, str) for n in names):
        raise BadRecord("a reading's reset markers, aliases or unstored names are not all names")
    holder = reading.extra.get("holder")
    if holder is not None and not good_holder(holder):
        raise BadRecord("a reading's oldest-transaction holder lacks a field or has one of the wrong type")


def good_holder(holder) -> bool:
    return (isinstance(holder, dict) and all(isinstance(holder.get(k), str) for k in HOLDER_TEXTS)
            and all(isinstance(holder.get(k), (str, type(None))) for k in HOLDER_OPTIONAL_TEXTS)
            and isinstance(holder.get("thread_id"), int) and isinstance(holder.get("idle"), bool)
            and isinstance(holder.get("age_s"), (int, float)))


def derive_of(spec: dict | None):
    if not spec:
        return None
    module_name, _, name = str(spec.get("function", "")).partition(":")
    allowed = {source.collect.__module__ for source in registry.all_sources()}
    if module_name not in allowed:
        raise BadRecord(f"a reading's derive names {module_name!r}, which is no source of this SteadyState")
    fn = getattr(importlib.import_module(module_name), name, None)
    if not callable(fn):
        raise BadRecord(f"a reading's derive names {spec['function']!r}, which does not exist here")
    return partial(fn, *spec.get("args", ()))


def number_or_none(value) -> float | None:
    return None if value is None else float(value)


def info_dict(info: ServerInfo) -> dict:
    return {"flavor": info.flavor, "version": info.version, "version_tuple": list(info.version_tuple),
            "performance_schema": info.performance_schema, "tps_basis": info.tps_basis}
