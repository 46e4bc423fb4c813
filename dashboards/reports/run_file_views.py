"""A run's file for another installation (docs/collect.md): downloaded from its report."""

import re

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.views.decorators.http import require_GET

from dashboards.reports.run_file import export
from servers.models import Run


@require_GET
def run_export(request: HttpRequest, run_id: int) -> HttpResponse:
    run = get_object_or_404(Run.objects.select_related("server"), pk=run_id)
    response = HttpResponse(export([run]), content_type="application/gzip")
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", f"{run.server.name}-{run.name}").strip("-")[:100] or "run"
    response["Content-Disposition"] = f'attachment; filename="{name}.run.json.gz"'
    return response
