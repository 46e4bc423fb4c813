from django.apps import AppConfig
from django.db.models.signals import post_migrate


class MonitorConfig(AppConfig):
    name = "monitor"

    def ready(self) -> None:
        # Every app's post_migrate, since each creates its own permissions after ours.
        post_migrate.connect(grant_admins_everything, dispatch_uid="monitor.roles.admins")


def grant_admins_everything(using: str = "default", **kwargs) -> None:
    """The admins group holds every permission, so the Django admin works for its (staff) members."""
    # Here, not at the top: apps.py is imported before the app registry can load models.
    from django.contrib.auth.models import Group, Permission

    from monitor.roles import ADMIN, GROUPS

    for name in GROUPS:
        Group.objects.using(using).get_or_create(name=name)
    admins = Group.objects.using(using).get(name=ADMIN)
    admins.permissions.set(Permission.objects.using(using).all())
