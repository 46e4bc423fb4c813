from django.apps import AppConfig


class DashboardsConfig(AppConfig):
    name = "dashboards"

    def ready(self) -> None:
        # Alerts sit below the dashboards: the purge-lag e-mails get the purge verdict through this hook.
        from alerts.readings import register_purge_reader
        from dashboards.reports.purge_reading import purge_sentence

        register_purge_reader(purge_sentence)
