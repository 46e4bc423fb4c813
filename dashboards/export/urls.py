"""CSV exports (included at the site root, before dashboards.urls)."""

from django.urls import path

from dashboards.export import views

urlpatterns = [
    path("export.csv", views.series_csv, name="export-csv"),
    path("export/topwaits.csv", views.topwaits_csv, name="export-topwaits"),
    path("export/compare.csv", views.compare_csv, name="export-compare"),
    path("export/runs.csv", views.runs_csv, name="export-runs"),
    path("export/scalability.csv", views.scalability_csv, name="export-scalability"),
    path("export/holders.csv", views.holders_csv, name="export-holders"),
    path("export/statements.csv", views.statements_csv, name="export-statements"),
    path("export/statement.csv", views.statement_csv, name="export-statement"),
    path("export/annotations.csv", views.annotations_csv, name="export-annotations"),
    path("export/fleet.csv", views.fleet_csv, name="export-fleet"),
]
