"""The Scalability page: TPS against client threads, one line per sweep or configuration."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from dashboards.figures.scalability import tps_figure, waits_figure
from dashboards.reports.scalability import StudyError, study, sweeps
from dashboards.views.common import TPS_DEFINITION


def study_context(request: HttpRequest) -> tuple[dict, int]:
    """The page's (or report's) context and status: a bad selection is a 400 with the picker and the reason."""
    context = {"sweeps": sweeps(), "picked": request.GET.getlist("sweep"), "tps_definition": TPS_DEFINITION,
               "knee": request.GET.get("knee", "")}
    if not request.GET.getlist("sweep") and not request.GET.get("runs"):
        return context, 200
    try:
        found = study(request.GET)
    except StudyError as error:
        return {**context, "error": str(error)}, 400
    context.update(study=found, knee=f"{found.threshold * 100:g}", figures={
        "chart-scalability": tps_figure(found.curves),
        "chart-scalability-waits": waits_figure(found.curves, found.events),
    })
    return context, 200


@require_GET
def scalability(request: HttpRequest) -> HttpResponse:
    context, status = study_context(request)
    return render(request, "dashboards/scalability.html", context, status=status)
