from django.apps import AppConfig


class ServersConfig(AppConfig):
    name = "servers"
    verbose_name = "Monitored servers, runs and annotations"
