from django.apps import AppConfig


class ExportConfig(AppConfig):
    """CSV export: an app of its own so that its export_csv command is found."""

    name = "dashboards.export"
    label = "export"
