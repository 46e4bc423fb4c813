"""Links between pages: a URL named in the urls confs, with its query string urlencoded."""

from collections.abc import Mapping
from urllib.parse import urlencode

from django.urls import reverse


def link(name: str, *args: object, query: Mapping[str, object] | None = None, safe: str = "") -> str:
    """The path of the URL named `name` (args fill its parameters), then `?query` when one is given.

    safe keeps some characters as typed (",": runs=1,2 reads as the ids a person types).
    """
    path = reverse(name, args=args)
    return f"{path}?{urlencode(query, safe=safe)}" if query else path
