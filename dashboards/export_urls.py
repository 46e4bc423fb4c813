"""CSV exports and printable reports (included at the site root, before dashboards.urls)."""

from django.urls import path

from dashboards import export, report

urlpatterns = [
    path("export.csv", export.series_csv, name="export-csv"),
    path("export/topwaits.csv", export.topwaits_csv, name="export-topwaits"),
    path("export/compare.csv", export.compare_csv, name="export-compare"),
    path("export/annotations.csv", export.annotations_csv, name="export-annotations"),
    path("runs/<int:run_id>/report/", report.run_report, name="run-report"),
    path("reports/compare/", report.compare_report, name="compare-report"),
]
