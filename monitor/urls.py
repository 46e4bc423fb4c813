from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("servers/", include("dashboards.server_urls")),
    path("alerts/", include("alerts.urls")),
    path("", include("dashboards.export.urls")),
    path("", include("dashboards.reports.urls")),
    path("", include("dashboards.urls")),
]
