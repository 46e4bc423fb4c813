from django.apps import AppConfig


class StoreConfig(AppConfig):
    name = "monitor.store"
    label = "store"
