"""The web worker's garbage collection: its start-up objects kept out of it, young collections rarer.

A worker's heap after start-up (Django, every view module, numpy, the store's caches) is large and lives
as long as the process; Python's cyclic collector walked all of it in each full collection (~100 ms
every 8 or so dashboard requests) and its young collections ran every 700 allocations, 4-6 ms a
request (docs/benchmarks.md, "Dashboards"). gunicorn calls `settle_heap` in each worker once the app
is loaded (monitor/gunicorn_conf.py); bench/dashboards.py --gc-freeze calls it the same way.
"""

import gc

from django.apps import apps
from django.urls import get_resolver

# Allocations between young collections (Python's default is 700), as the Celery worker's (collectors.tasks).
GC_YOUNG = 10_000


def settle_heap() -> None:
    """Import every view now (not on the first request), then freeze what start-up made and collect less often."""
    if apps.ready:  # a Django app (not a bare WSGI one under the same gunicorn settings)
        get_resolver().url_patterns  # noqa: B018 -- the URL conf imports the views
    gc.collect()  # start-up's garbage is freed, not frozen
    gc.freeze()
    gc.set_threshold(GC_YOUNG, *gc.get_threshold()[1:])
