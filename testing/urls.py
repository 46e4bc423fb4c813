"""Every URL of the project with sample values for its parameters, for tests that visit them all."""

import re

from django.urls import URLPattern, URLResolver, get_resolver

OPEN = {"/accounts/login/"}
SAMPLES = {"int": "1", "uuid": "00000000-0000-0000-0000-000000000000", "path": "x/y"}  # by path converter


def all_paths(patterns=None, prefix: str = "") -> list[tuple[str, object]]:
    """Every URL of the project, with sample values for its parameters."""
    out = []
    for p in patterns if patterns is not None else get_resolver().url_patterns:
        route = prefix + str(p.pattern)
        if isinstance(p, URLResolver):
            if route.startswith("admin/"):
                continue  # the admin, checked below
            out += all_paths(p.url_patterns, route)
        elif isinstance(p, URLPattern):
            path = "/" + re.sub(r"<(?:(\w+):)?(\w+)>", lambda m: SAMPLES.get(m[1], "x"), route)
            out.append((path.replace("^", "").replace("$", ""), p.callback))
    return out
