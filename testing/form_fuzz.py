"""Hostile values POSTed to one field of a form at a time, the others valid: no 500, a refusal said, nothing lost.

The URL fuzz (monitor/tests/test_fuzz_urls.py) sets every field at once, so a form refuses the first bad one
and the cleaning of the others behind it never runs; here each field gets each value alone.
"""

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from django.db import models
from django.forms.models import model_to_dict
from django.test import Client

from servers.time_bounds import out_of_bounds

MISSING_ID = "987654321"
# For every field: empty, very long, control characters and NUL, markup, text that is no number or time.
ANY = ["", " ", "x" * 10_000, "\x01\x07\x1b[31m\x7f", "\x00", "a\x00b", "garbage", "no-such-choice", "'\"<>&%",
       "\ufffd\U0001f600"]
# For a field whose valid value is a number or an id: numbers past every type, and an id nothing has.
NUMBERS = ["-1", "0", "9" * 30, "-" + "9" * 30, "nan", "inf", "-inf", "1e400", "-1e400", "9223372036854775808",
           "1.5", MISSING_ID]
# For a date or a time: past every bound, or no such day or hour.
TIMES = ["0001-01-01", "0001-01-01 00:00:00", "0001-01-01T00:00:00", "9999-12-31", "9999-12-31 23:59:59",
         "10000-01-01", "10000-01-01 00:00:00", "2026-02-30", "25:61:61", "-1"]
VALUES = ANY + NUMBERS + TIMES
# For a field of one line (a name, a host): control characters inside printable text (a field strips them at its
# ends), a terminal's colour, a tab or line break, a bidi override; each must be refused (servers/names.py).
CONTROLS = ["a\x01b", "\x1b[31mred", "a\tb", "a\nb", "a\r\nb", "a\x7fb", "a\x85b", "\u202eevil", "a\u2066b",
            "\x01\x07\x1b[31m\x7f"]
# For a free text (a detail of several lines): tabs and line breaks are kept, the rest refused.
TEXT_CONTROLS = [v for v in CONTROLS if not set(v) & set("\t\n\r")]
REFUSAL = "cannot hold control characters"
TIME = re.compile(r"\d{4}-\d\d-\d\d|\d\d:\d\d")


def raising_admin(admin_user) -> Client:
    """A client logged in as the admin that raises what a view raises: a 500 fails the test with its traceback."""
    client = Client(raise_request_exception=True)
    client.force_login(admin_user)
    return client


def values_for(valid: str) -> list[str]:
    """The hostile values worth sending in place of a valid one (a number's field gets no dates)."""
    if TIME.search(valid):
        return ANY + TIMES
    if re.fullmatch(r"-?\d+(\.\d+)?", valid):
        return ANY + NUMBERS
    return ANY
ERROR_MARKS = ("errorlist", "errornote", 'class="error', "class='error")


@dataclass
class Outcome:
    failures: list[str] = field(default_factory=list)  # 500s, silent refusals, changes without saving
    kept: list[str] = field(default_factory=list)  # hostile values saved (some are fine: 10k chars of notes)
    posts: int = 0


def bad_kept(table: list[dict]) -> list[str]:
    """What no row may hold: a NUL (PostgreSQL refuses it in text), a time outside 1970-2100."""
    out = []
    for row in table:
        for name, value in row.items():
            if isinstance(value, str) and "\x00" in value:
                out.append(f"a NUL in {name}")
            elif isinstance(value, datetime) and out_of_bounds(value):
                out.append(f"{name}={value} out of bounds")
    return out


def rows(model: type[models.Model]) -> list[dict]:
    return [model_to_dict(o) for o in model.objects.order_by("pk")]


def fuzz_form(client: Client, url: str, valid: Callable[[int], dict], model: type[models.Model],
              fields: list[str] | None = None, saved: int = 302) -> Outcome:
    """POST valid(i) with one field set to each hostile value; a refusal must say why and change nothing."""
    out = Outcome()
    names = fields if fields is not None else [n for n in valid(0) if n not in ("action", "save_anyway")]
    for name in names:
        for value in values_for(str(valid(0).get(name, ""))):
            out.posts += 1
            data = {**valid(out.posts), name: value}
            before = rows(model)
            label = f"POST {url} {name}={value[:30]!r}"
            try:
                response = client.post(url, data)
            except Exception as exc:  # the test client re-raises what the view raised: a 500 in production
                out.failures.append(f"{label}: {type(exc).__name__}: {str(exc)[:200]}")
                continue
            body = response.content.decode(errors="replace")
            if response.status_code >= 500:
                out.failures.append(f"{label}: HTTP {response.status_code}")
            elif response.status_code == saved:
                out.kept.append(f"{name}={value[:30]!r}")
                new = [row for row in rows(model) if row not in before]
                out.failures += [f"{label}: saved {bad}" for bad in bad_kept(new)]
            elif not any(mark in body for mark in ERROR_MARKS) and response.status_code < 400:
                out.failures.append(f"{label}: HTTP {response.status_code} without an error shown")
            elif rows(model) != before:
                out.failures.append(f"{label}: refused, but the table changed")
    return out


def field_errors(response, name: str) -> list[str]:
    """The errors the answer's form shows on that field (a page's "form" or the admin's "adminform")."""
    if response.context is None:
        return []
    admin_form = response.context.get("adminform")
    form = admin_form.form if admin_form is not None else response.context.get("form")
    return list(form.errors.get(name, [])) if form is not None else []


def refuse_controls(client: Client, url: str, valid: Callable[[int], dict], model: type[models.Model],
                    lines: Sequence[str], texts: Sequence[str] = ()) -> Outcome:
    """POST valid(i) with one field of one line (lines) or of free text (texts) holding each control character
    value alone: the form must refuse it with an error on that field that says so, and change nothing."""
    out = Outcome()
    for name in [*lines, *texts]:
        for value in TEXT_CONTROLS if name in texts else CONTROLS:
            out.posts += 1
            before = rows(model)
            label = f"POST {url} {name}={value!r}"
            try:
                response = client.post(url, {**valid(out.posts), name: value})
            except Exception as exc:  # the test client re-raises what the view raised: a 500 in production
                out.failures.append(f"{label}: {type(exc).__name__}: {str(exc)[:200]}")
                continue
            if rows(model) != before:
                out.failures.append(f"{label}: accepted")
            elif not any(REFUSAL in error for error in field_errors(response, name)):
                out.failures.append(f"{label}: HTTP {response.status_code}, no control-character error on {name}")
    return out
