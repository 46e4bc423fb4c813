"""A valid request for every route, with ids that exist: what the fuzz changes one parameter of at a time.

An invalid server= or run id is answered 400 or 404 before a view reads the rest; from these requests
every other parameter is reached. Each route names the status its valid request answers.
"""

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.urls import URLPattern, URLResolver, get_resolver, reverse

from alerts.models import Event, Rule
from servers.models import Run, Server


@dataclass(frozen=True)
class Ask:
    """One request: the query string, a form body (post) or a JSON body (api), and what it answers."""

    name: str  # the URL's name
    kwargs: dict = field(default_factory=dict)  # the path's parameters
    query: dict = field(default_factory=dict)
    form: dict | None = None  # POSTed as a form
    api: dict | None = None  # POSTed as JSON with the token
    ok: tuple[int, ...] = (200,)

    @property
    def path(self) -> str:
        return reverse(self.name, kwargs=self.kwargs)


@dataclass(frozen=True)
class World:
    """The things the fuzz's valid requests name (made by the test's fixture)."""

    server: Server
    runs: list[Run]  # two runs of the server inside its polls
    sweep: str  # a sweep of runs with a concurrency
    digest: int  # a statement digest the server read
    rule: Rule
    event: Event
    start: datetime  # the polls' first and last times
    end: datetime


def iso(ts: datetime) -> str:
    return ts.isoformat(timespec="seconds")


def asks(w: World) -> list[Ask]:
    """A valid request of every route but logout, the admin's and those that delete (the plain fuzz has them)."""
    sid, r1, r2 = w.server.pk, w.runs[0].pk, w.runs[1].pk
    window = {"from": iso(w.start - timedelta(minutes=1)), "to": iso(w.end + timedelta(minutes=1))}
    second = {"from2": iso(w.start), "to2": iso(w.start + timedelta(minutes=5))}
    on = {"server_id": sid}
    return [
        Ask("dashboards:fleet", query={"tag": "lab", "cond": "1", "page": "1"}),
        Ask("dashboards:stability", on, {**window, "waits": "8", "dip": "0.5", "client": "1", "w": "800"}),
        Ask("dashboards:stability", on, {"range": "1h"}),
        Ask("dashboards:purge", on, {**window, "threshold": "5000", "w": "800"}),
        Ask("dashboards:waits", on, {**window, **second, "top": "20", "cond": "1", "client": "0"}),
        Ask("dashboards:pressure", on, window),
        Ask("dashboards:replication", on, window),
        Ask("dashboards:host", on, window),
        Ask("dashboards:demo-load", on, form={"action": "resume", "next": "/runs/"}, ok=(302,)),
        Ask("dashboards:statements", on, {**window, "top": "10", "order": "time"}),
        Ask("dashboards:statement", {**on, "digest_id": w.digest}, {**window, "w": "800"}),
        Ask("dashboards:explore", query={**window, "server": str(sid), "metric": "tps", "pattern": "wait.*",
                                         "log": "1"}),
        Ask("dashboards:runs", query={"server": str(sid), "sort": "-tps"}),
        Ask("dashboards:runs", query={"server": str(sid)}, ok=(302,), form={
            "run-name": "by hand", "run-server": str(sid), "run-started_at": iso(w.start)[:19],
            "run-ended_at": iso(w.end)[:19], "run-notes": "n", "run-concurrency": "4", "run-warmup_seconds": "10",
            "run-sweep": "", "run-label": ""}),
        Ask("dashboards:runs", ok=(302,), form={"note-server": str(sid), "note-at": iso(w.start)[:19],
                                                "note-text": "a note"}),
        Ask("dashboards:compare", query={"runs": f"{r1},{r2}", "warmup": "10", "w": "800", "cond": "1"}),
        Ask("dashboards:compare", query={"a": str(r1), "b": str(r2)}),
        Ask("dashboards:compare", query={"a_label": "A", "b_label": "B"}),
        Ask("dashboards:scalability", query={"sweep": w.sweep, "knee": "50"}),
        Ask("dashboards:scalability", query={"sweep": w.sweep}, form={"sweep": w.sweep, "label": "lbl"}, ok=(302,)),
        Ask("dashboards:tokens"),
        Ask("dashboards:tokens", form={"name": "a token"}),
        Ask("dashboards:api-annotations", api={"server": sid, "run": r1, "at": iso(w.start), "text": "t"}, ok=(201,)),
        Ask("dashboards:api-annotations", api={"server": w.server.name, "text": "t"}, ok=(201,)),
        Ask("dashboards:api-runs", ok=(201,), api={
            "name": "api run", "server": sid, "started_at": iso(w.start), "ended_at": iso(w.end), "notes": "n",
            "concurrency": 8, "warmup_seconds": 10, "sweep": "api", "label": "l", "command": "c",
            "tool_summary": "s"}),
        Ask("dashboards:api-run-end", {"run_id": r2}, api={"ended_at": iso(w.end), "tool_summary": "s"}),
        Ask("servers:list", query={"page": "1"}),
        Ask("servers:add", form=server_form("new-db")),
        Ask("servers:edit", {"pk": sid}, form=server_form(w.server.name)),
        Ask("servers:test", {"pk": sid}, form={}),
        Ask("alerts:index"),
        Ask("alerts:rule_new", form=rule_form(sid), ok=(302,)),
        Ask("alerts:rule_edit", {"rule_id": w.rule.pk}, form=rule_form(sid), ok=(302,)),
        Ask("alerts:rule_toggle", {"rule_id": w.rule.pk}, form={}, ok=(302,)),
        Ask("alerts:event", {"event_id": w.event.pk}),
        Ask("alerts:test_email", form={"address": "dba@example.com"}, ok=(302,)),
        Ask("export-csv", query={**window, "server": str(sid), "metrics": "tps,wait.time_ps:*", "step": "60",
                                 "mode": "rate", "minmax": "1", "seconds": "1", "bom": "1"}),
        Ask("export-csv", query={"server": w.server.name, "metrics": "tps", "range": "1h", "w": "800"}),
        Ask("export-csv", query={"run": str(r1), "metrics": "tps", "full": "1"}),
        Ask("export-topwaits", query={**window, **second, "server": str(sid), "cond": "1", "client": "1"}),
        Ask("export-compare", query={"runs": f"{r1},{r2}", "warmup": "10"}),
        Ask("export-runs", query={"server": str(sid), "sort": "-tps"}),
        Ask("export-scalability", query={"sweep": w.sweep, "knee": "50"}),
        Ask("export-holders", query={**window, "server": str(sid)}),
        Ask("export-statements", query={**window, "server": str(sid), "order": "time"}),
        Ask("export-statements", query={"runs": f"{r1},{r2}", "warmup": "10"}),
        Ask("export-statement", query={**window, "server": str(sid), "digest": str(w.digest)}),
        Ask("export-annotations", query={**window, "server": str(sid)}),
        Ask("export-fleet", query={"tag": "lab", "cond": "1"}),
        Ask("run-report", {"run_id": r1}, {"cond": "1"}),
        Ask("run-export", {"run_id": r1}),
        Ask("compare-report", query={"runs": f"{r1},{r2}", "warmup": "10"}),
        Ask("scalability-report", query={"sweep": w.sweep, "knee": "50"}),
    ]


def server_form(name: str) -> dict:
    """The server form, valid; port 1 refuses the connection test at once."""
    return {"name": name, "host": "127.0.0.1", "port": "1", "socket": "", "user": "steady", "password": "pw",
            "tls_mode": "", "tls_ca": "", "tls_cert": "", "tls_key": "", "tags": "lab", "poll_interval": "10",
            "statements_interval": "60", "node_exporter_url": "", "enabled": "on", "action": "test"}


def rule_form(server_id: int) -> dict:
    return {"name": "fuzz rule", "kind": "growth", "metric": "tps", "threshold": "100", "window_minutes": "5",
            "source": "", "server": str(server_id), "tag": "", "recipients": "dba@example.com",
            "webhook_url": "", "webhook_secret": "", "cooldown_minutes": "10", "renotify_minutes": "0",
            "enabled": "on"}


GONE = object()  # a key taken out of a document rather than given a value


def leaf_paths(document, path: tuple = ()) -> list[tuple]:
    """The path to every value of a JSON document (a list's first item only), containers included."""
    out = [path] if path else []
    if isinstance(document, dict):
        for key, value in document.items():
            out += leaf_paths(value, (*path, key))
    elif isinstance(document, list) and document:
        out += leaf_paths(document[0], (*path, 0))
    return out


def replaced(document, path: tuple, value):
    """A copy of the document with the value at path replaced (or taken out: GONE)."""
    if not path:
        return value
    head, rest = path[0], path[1:]
    copy = dict(document) if isinstance(document, dict) else list(document)
    if value is GONE and not rest:
        del copy[head]
    else:
        copy[head] = replaced(document[head], rest, value)
    return copy


# Routes without a valid request here: the plain fuzz asks them (test_fuzz_urls.py).
LEFT_OUT = {
    "login", "logout",  # no parameter behind an id; a logout would end the session
    "servers:delete", "alerts:rule_delete",  # they delete what the other requests name
    "servers:load",  # a collection file is written by `manage.py collect` on a MySQL server
}


def route_names(patterns=None, namespace: str = "") -> set[str]:
    """Every URL name of the project's own URL confs (the admin's left out), with its namespace."""
    names = set()
    for p in patterns if patterns is not None else get_resolver().url_patterns:
        if isinstance(p, URLResolver):
            if p.namespace != "admin":
                names |= route_names(p.url_patterns, f"{namespace}{p.namespace}:" if p.namespace else namespace)
        elif isinstance(p, URLPattern) and p.name:
            names.add(namespace + p.name)
    return names
