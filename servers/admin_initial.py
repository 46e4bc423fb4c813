"""The Django admin's add page takes initial values from its query string; dates there must be parsed.

Django hands `?started_at=...` to the date-time widget as a string, which it cannot split: a 500. Parsed
here, and left out when it is no time (or outside the time bounds), like any other unusable value.
"""

from django.contrib import admin
from django.db import models
from django.utils.dateparse import parse_datetime

from servers.time_bounds import out_of_bounds


class ParsedInitialAdmin(admin.ModelAdmin):
    """A ModelAdmin whose date-time initial values from the query string are parsed, or dropped."""

    def get_changeform_initial_data(self, request) -> dict:
        initial = super().get_changeform_initial_data(request)
        for field in self.model._meta.get_fields():
            if isinstance(field, models.DateTimeField) and field.name in initial:
                initial[field.name] = _parsed(initial[field.name])
                if initial[field.name] is None:
                    del initial[field.name]
        return initial


def _parsed(value):
    try:
        ts = parse_datetime(str(value))
    except ValueError:
        return None
    return None if ts is None or out_of_bounds(ts) else ts
