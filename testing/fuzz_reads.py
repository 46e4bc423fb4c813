"""Which query and form parameters a request reads: recorded from QueryDict while the view runs.

A parameter read through a variable (get.get(name)) or deep in a parser is found too, where the
static search of testing/fuzz.py sees only literal names.
"""

from collections.abc import Iterator
from contextlib import contextmanager

from django.http import QueryDict
from django.utils.datastructures import MultiValueDict

WRAPPED = ("get", "getlist", "__getitem__", "__contains__")


class Reads:
    """The keys read of each QueryDict (by id) since the last take()."""

    def __init__(self) -> None:
        self.seen: list[tuple[int, str]] = []

    @contextmanager
    def recording(self) -> Iterator["Reads"]:
        for name in WRAPPED:
            setattr(QueryDict, name, self._recorder(getattr(MultiValueDict, name)))
        try:
            yield self
        finally:
            for name in WRAPPED:
                delattr(QueryDict, name)

    def _recorder(self, method):
        def read(qd, key, *args, **kwargs):
            if isinstance(key, str):
                self.seen.append((id(qd), key))
            return method(qd, key, *args, **kwargs)
        return read

    def take(self, request) -> tuple[set[str], set[str]]:
        """(GET keys, POST keys) the request read; the record starts again empty."""
        get, post = id(request.__dict__.get("GET")), id(getattr(request, "_post", None))
        found = ({k for i, k in self.seen if i == get}, {k for i, k in self.seen if i == post})
        self.seen = []
        return found
