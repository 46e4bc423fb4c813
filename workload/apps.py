from django.apps import AppConfig


class WorkloadConfig(AppConfig):
    name = "workload"
