"""Judges of the collectors' own health: a server unreachable, a source failing (from ServerHealth)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from functools import partial, reduce
from operator import or_
from typing import TYPE_CHECKING

from django.db.models import Count, Max, Min, Q

from alerts.verdicts import Cleared, Verdict
from collectors.models import PollRecord, ServerHealth
from collectors.status import CONNECTION_LOST, FAILING, NOT_POLLED, OK, is_failing, off_from_the_start, status_of
from servers.models import Server

if TYPE_CHECKING:  # the kinds table (alerts.kinds) refers to the functions here
    from alerts.models import Rule


def health_rows(servers: list[Server]) -> dict:
    return {h.server_id: h for h in ServerHealth.objects.filter(server_id__in=[s.id for s in servers])}


def unreachable_verdicts(rule: Rule, servers: list[Server], now: datetime) -> dict[int, list[Verdict]]:
    answer, health = {}, health_rows(servers)
    for server in servers:
        h = health.get(server.id)
        if h is None or 0 < h.consecutive_failures < rule.threshold:
            continue  # never polled, or failing but not for long enough to fire nor recovered
        answer[server.id] = [unreachable_verdict(server, h) if h.consecutive_failures
                             else Verdict(False, value=0, detail=f"{server.name} answers again",
                                          cleared=partial(answered_again, server.id))]
    return answer


def answered_again(server_id: int, _started: datetime) -> Cleared | None:
    """When the server answered again: the end of the first successful poll after the last failed one (from the
    poll history, a ring). Not its start: that poll may have waited on the paused or overloaded server for
    seconds, up to its read timeout, before the answer came."""
    polls = PollRecord.objects.filter(server_id=server_id)
    failed = polls.filter(ok=False).aggregate(last=Max("started_at"))["last"]
    ok = polls.filter(ok=True)
    first = (ok.filter(started_at__gt=failed) if failed else ok).order_by("started_at").first()
    return Cleared(first.started_at + timedelta(milliseconds=first.duration_ms)) if first else None


def unreachable_verdict(server: Server, h: ServerHealth) -> Verdict:
    """Since the first failed poll of the run; where the poll history no longer holds it, the detail
    names the last successful poll instead, which is all that is known."""
    failures, first = h.consecutive_failures, first_failure(h)
    detail = (f"{server.name} ({server.address}): {failures} polls in a row failed"
              + (f", the first at {utc_text(first)}" if first else f"; {last_success_text(h)}")
              + f"; last error: {h.last_error or 'none'}")
    return Verdict(True, value=failures, since=first or h.last_success_at or h.last_poll_at, detail=detail)


def first_failure(h: ServerHealth) -> datetime | None:
    """The first failed poll of the current run, if the poll history (a ring) still holds every one."""
    failed = PollRecord.objects.filter(server_id=h.server_id, ok=False)
    if h.last_success_at:
        failed = failed.filter(started_at__gt=h.last_success_at)
    found = failed.aggregate(n=Count("id"), first=Min("started_at"))
    return found["first"] if found["n"] == h.consecutive_failures else None


def last_success_text(h: ServerHealth) -> str:
    if h.last_success_at is None:
        return "never polled successfully"
    return f"last successful poll at {utc_text(h.last_success_at)}"


def utc_text(t: datetime) -> str:
    return f"{t.astimezone(UTC):%Y-%m-%d %H:%M:%S} UTC"


def source_verdicts(rule: Rule, servers: list[Server], now: datetime) -> dict[int, list[Verdict]]:
    answer, health = {}, health_rows(servers)
    for server in servers:
        h = health.get(server.id)
        if h is None or h.consecutive_failures:
            continue  # unreachable: the unreachable rule speaks, sources are unknown
        answer[server.id] = [source_verdict(server, name, state, h.last_poll_at)
                             for name, state in sorted((h.sources or {}).items())
                             if not rule.source or name == rule.source]
    return answer


def source_verdict(server: Server, name: str, state: dict, polled_at) -> Verdict:
    if status_of(state) in (NOT_POLLED, CONNECTION_LOST):
        # Not run since the connection failed (a restart; a 60 s source not yet due since): no news of it.
        return Verdict(False, key=name, unknown=True, detail=f"{server.name}: source {name} not read since the "
                       "connection failed")
    if off_from_the_start(state):
        # The server's configuration, not a failure: an event opened for it before "worked" was kept ends now.
        return Verdict(False, key=name, detail=f"{server.name}: source {name} off since the server was first "
                       f"polled, a setting of the server rather than a failure: {state.get('error') or 'off'}")
    ok = not is_failing(state)
    detail = (f"{server.name}: source {name} ok" if ok
              else f"{server.name}: source {name} failing: {state.get('error') or 'no error text'}")
    return Verdict(not ok, key=name, since=None if ok else read_at(state) or polled_at, detail=detail,
                   cleared=partial(read_good_again, server.id, name) if ok else None)


def read_good_again(server_id: int, name: str, _started: datetime) -> Cleared | None:
    """When a read proved the source good again: the end of the first poll after its last failing read that read
    it ok (from the poll history, a ring). Not the start of the health row's newest poll: that poll had not read
    it yet when it began (the read may wait on the server for seconds), and may not have run it at all (a source
    read every 60 s). None where no such poll is kept: the event then ends at the evaluation, after the read."""
    polls = PollRecord.objects.filter(server_id=server_id)
    failing = reduce(or_, (Q(sources__contains={name: {"status": status}}) for status in FAILING))
    failed = polls.filter(failing).aggregate(last=Max("started_at"))["last"]
    good = polls.filter(sources__contains={name: {"status": OK}})
    first = (good.filter(started_at__gt=failed) if failed else good).order_by("started_at").first()
    return Cleared(first.started_at + timedelta(milliseconds=first.duration_ms)) if first else None


def read_at(state: dict) -> datetime | None:
    """The poll that last ran the source: a source read less often than the server (statements, every 60 s)
    keeps its state through the polls between, so the health row's newest poll is not when it failed."""
    return datetime.fromisoformat(state["at"]) if state.get("at") else None


# Replication (collectors' source "replication"): one verdict per channel, keyed by its name.
