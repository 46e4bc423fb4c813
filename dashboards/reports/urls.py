"""Printable run and compare reports (included at the site root, before dashboards.urls)."""

from django.urls import path

from dashboards.reports import views
from dashboards.reports.run_file_views import run_export

urlpatterns = [
    path("runs/<int:run_id>/report/", views.run_report, name="run-report"),
    path("runs/<int:run_id>/export/", run_export, name="run-export"),
    path("reports/compare/", views.compare_report, name="compare-report"),
    path("reports/scalability/", views.scalability_report, name="scalability-report"),
]
