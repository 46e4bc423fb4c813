"""Hostile requests for the fuzz test over every URL: routes with their parameters filled, and bad values."""

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

from django.urls import URLPattern, URLResolver, get_resolver

HUGE = "9" * 30
# Values that broke or could break a reader: NUL, a replacement for a surrogate (query strings cannot
# carry a lone one), numbers past every type, times outside every range, markup and a long text.
HOSTILE = ["", "\x00", "a\x00b", "-1", "0", HUGE, "1e309", "nan", "-inf", "0001-01-01T00:00:00+01:00",
           "9999-12-31T23:59:59-01:00", "1969-12-31T23:59:59Z", "[", "'\"<>&%", "\ufffd\U0001f600", "x" * 5000,
           "1,2,,-3", "*"]
# One value at a time behind valid ids (test_fuzz_valid_ids.py): times past every bound (year 0, 9999,
# 10**20 s after 1970, days and hours that do not exist), numbers past every integer type and digits
# int() reads but a database does not, text that turns or only looks like a number.
TIMES = ["0000-01-01T00:00:00", "0001-01-01", "9999-12-31T23:59:59.999999", "100000000000000000000",
         "-100000000000000000000", "1e20", "-1e20", "2026-02-30T00:00", "2026-01-05T24:00", "1969-01-01",
         "2026-01-05T12:00:00+25:00", "253402300800"]
NUMBERS = ["9223372036854775808", "-9223372036854775809", "2147483648", "1" * 5000, "inf", "-0", "1e-400",
           "0.5", "\uff11\uff12", "\u00b2", "1_0", "0x10", " 7 "]
TARGETED = HOSTILE + TIMES + NUMBERS + ["\u202e\u0661", "true"]
# A JSON body's values of every type, beside the strings above.
JSON_HOSTILE = [None, True, -1, 0, 10**30, -(10**30), 1.5, float("inf"), float("nan"), [], {}, ["x"], {"a": 1},
                "\ud800"]
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


PAIRS = (("from", "to"), ("from2", "to2"), ("started_at", "ended_at"), ("run-started_at", "run-ended_at"))


def range_pairs(given: dict, read: set[str]) -> list[dict]:
    """A range's two ends together: reversed, empty, a microsecond, past every bound, one end alone."""
    out = []
    for a, b in PAIRS:
        if a not in read or b not in read:
            continue
        start = datetime.fromisoformat(str(given.get(a) or "2026-01-05T12:00:00+00:00"))
        end = datetime.fromisoformat(str(given.get(b) or "2026-01-05T13:00:00+00:00"))
        future = datetime.now(UTC) + timedelta(days=2)
        for first, last in ((end, start), (start, start), (start, start + timedelta(microseconds=1)),
                            (start, start + timedelta(seconds=1)), (start - timedelta(days=801), start),
                            (future, future + timedelta(hours=1)), (future, ""), ("", start),
                            ("1969-12-31T23:59:59Z", "1970-01-01T00:00:01Z"),
                            ("0001-01-01T00:00:00", "9999-12-31T23:59:59"), ("-1e20", "1e20"), ("0", "1")):
            out.append({a: first.isoformat() if isinstance(first, datetime) else first,
                        b: last.isoformat() if isinstance(last, datetime) else last})
    return out
