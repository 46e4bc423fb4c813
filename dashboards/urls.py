from django.urls import path

from dashboards.views import (
    api,
    compare,
    demo_load,
    explore,
    fleet,
    host,
    pressure,
    replication,
    runs,
    scalability,
    server,
    statements,
    tokens,
)

app_name = "dashboards"

urlpatterns = [
    path("", fleet.fleet, name="fleet"),
    path("servers/<int:server_id>/stability/", server.stability, name="stability"),
    path("servers/<int:server_id>/purge/", server.purge, name="purge"),
    path("servers/<int:server_id>/waits/", server.waits, name="waits"),
    path("servers/<int:server_id>/pressure/", pressure.pressure, name="pressure"),
    path("servers/<int:server_id>/replication/", replication.replication, name="replication"),
    path("servers/<int:server_id>/host/", host.host, name="host"),
    path("servers/<int:server_id>/demo-load/", demo_load.demo_load, name="demo-load"),
    path("servers/<int:server_id>/statements/", statements.statements, name="statements"),
    path("servers/<int:server_id>/statements/<int:digest_id>/", statements.statement, name="statement"),
    path("explore/", explore.explore, name="explore"),
    path("runs/", runs.runs, name="runs"),
    path("compare/", compare.compare, name="compare"),
    path("scalability/", scalability.scalability, name="scalability"),
    path("tokens/", tokens.tokens, name="tokens"),
    path("api/annotations", api.create_annotation, name="api-annotations"),
    path("api/runs", api.create_run, name="api-runs"),
    path("api/runs/<int:run_id>/end", api.end_run, name="api-run-end"),
]
