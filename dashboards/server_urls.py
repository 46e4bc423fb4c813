from django.urls import path

from dashboards.views import servers as views
from dashboards.views.server_load import run_import, server_load

app_name = "servers"
urlpatterns = [
    path("", views.server_list, name="list"),
    path("add/", views.server_add, name="add"),
    path("load/", server_load, name="load"),
    path("import-run/", run_import, name="import_run"),
    path("<int:pk>/edit/", views.server_edit, name="edit"),
    path("<int:pk>/test/", views.server_test, name="test"),
    path("<int:pk>/delete/", views.server_delete, name="delete"),
]
