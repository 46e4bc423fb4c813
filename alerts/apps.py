from django.apps import AppConfig


class AlertsConfig(AppConfig):
    name = "alerts"
    label = "alerts"

    def ready(self) -> None:
        from alerts import recipients  # noqa: F401 - registers the ALERT_RECIPIENTS system check
