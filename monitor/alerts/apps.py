from django.apps import AppConfig


class AlertsConfig(AppConfig):
    name = "monitor.alerts"
    label = "alerts"
