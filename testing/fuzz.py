"""Hostile requests for the fuzz test over every URL: routes with their parameters filled, and bad values."""

import re
from pathlib import Path

from django.urls import URLPattern, URLResolver, get_resolver

HUGE = "9" * 30
# Values that broke or could break a reader: NUL, a replacement for a surrogate (query strings cannot
# carry a lone one), numbers past every type, times outside every range, markup and a long text.
HOSTILE = ["", "\x00", "a\x00b", "-1", "0", HUGE, "1e309", "nan", "-inf", "0001-01-01T00:00:00+01:00",
           "9999-12-31T23:59:59-01:00", "1969-12-31T23:59:59Z", "[", "'\"<>&%", "\ufffd\U0001f600", "x" * 5000,
           "1,2,,-3", "*"]
GROUP = re.compile(r"\(\?P<(\w+)>([^()]*)\)")
CONVERTER = re.compile(r"<(?:(\w+):)?(\w+)>")


def routes(patterns=None, prefix: str = "") -> list[tuple[str, object]]:
    """(route with placeholders, view) of every URL pattern, the admin's included."""
    out = []
    for p in patterns if patterns is not None else get_resolver().url_patterns:
        route = prefix + str(p.pattern)
        if isinstance(p, URLResolver):
            out += routes(p.url_patterns, route)
        elif isinstance(p, URLPattern):
            out.append((route.replace("^", "").replace("$", "").replace("\\", ""), p.callback))
    return out


def fill(route: str, ints: list[str], texts: list[str]) -> list[str]:
    """Paths for a route: each parameter given every sample of its kind (the others their first)."""
    route = GROUP.sub(lambda m: m[2].split("|")[0] if re.fullmatch(r"[\w|]+", m[2]) else "<str:" + m[1] + ">",
                      route)
    params = CONVERTER.findall(route)
    if not params:
        return ["/" + route]
    pieces = CONVERTER.split(route)  # text, converter, name, text, converter, name, ..., text
    firsts = [(ints if kind == "int" else texts)[0] for kind, _ in params]
    paths = set()
    for i, (kind, _) in enumerate(params):
        for sample in ints if kind == "int" else texts:
            values = firsts[:i] + [sample] + firsts[i + 1:]
            paths.add("/" + "".join(pieces[0::3][k] + (values[k] if k < len(values) else "")
                                    for k in range(len(pieces[0::3]))))
    return sorted(paths)


# A parameter read by its literal name, GET.get("top"), or handed by it to a parser with the query
# dict, int_param(request.GET, "top", ...): a name held only in a variable (get.get(name)) is not seen.
PARAM = re.compile(r"""\b(?:(?:GET|POST|get|query|params|data|body)\.(?:get|getlist)\(|(?:GET|POST|get)\s*,)"""
                   r"""\s*["'](\w+)["']""")
FIELD = re.compile(r"""name="([A-Za-z_][\w-]*)\"""")


def parameter_names(root: Path) -> list[str]:
    """Every query and form parameter the code reads or the templates send."""
    names = set()
    for path in root.rglob("*.py"):
        if ".venv" not in path.parts and "tests" not in path.parts:
            names.update(PARAM.findall(path.read_text(errors="replace")))
    for path in (root / "templates").rglob("*.html"):
        names.update(FIELD.findall(path.read_text(errors="replace")))
    return sorted(names - {"csrfmiddlewaretoken"})


def json_bodies() -> list[bytes]:
    """API bodies: NUL and lone surrogates in every field, deep nesting, numbers past every type."""
    fields = ["name", "server", "notes", "sweep", "label", "command", "tool_summary", "text", "run", "at",
              "started_at", "ended_at", "concurrency", "warmup_seconds"]
    bodies = [b"[" * 100_000 + b"]" * 100_000, b"{" * 50_000, b"\xff\xfe", b"null", b"1e400", b'"\\ud800"']
    for value in ('"\\u0000"', '"\\ud800"', "1e400", "-1", "18446744073709551616" * 3, "[[[[1]]]]", "{}", "true",
                  '"0001-01-01T00:00:00+01:00"', '"9999-12-31T23:59:59-01:00"'):
        bodies.append(("{" + ", ".join(f'"{f}": {value}' for f in fields) + "}").encode())
    return bodies
