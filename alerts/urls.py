from django.urls import path

from alerts import views

app_name = "alerts"
urlpatterns = [
    path("", views.index, name="index"),
    path("rules/new/", views.rule_form, name="rule_new"),
    path("rules/<int:rule_id>/edit/", views.rule_form, name="rule_edit"),
    path("rules/<int:rule_id>/toggle/", views.rule_toggle, name="rule_toggle"),
    path("rules/<int:rule_id>/delete/", views.rule_delete, name="rule_delete"),
    path("events/<int:event_id>/", views.event_detail, name="event"),
    path("test-email/", views.test_email, name="test_email"),
]
