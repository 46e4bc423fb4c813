"""The three roles as groups; users who had no role keep read access as viewers."""

from django.db import migrations

GROUPS = ("viewers", "operators", "admins")  # monitor.roles.GROUPS, frozen here


def create_groups(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    User = apps.get_model("auth", "User")
    for name in GROUPS:
        Group.objects.get_or_create(name=name)
    viewers = Group.objects.get(name="viewers")
    # Before roles every user could do everything; now nobody keeps more than reading
    # until an admin decides. Superusers are admins without a group.
    for user in User.objects.filter(is_superuser=False).exclude(groups__name__in=GROUPS):
        user.groups.add(viewers)


class Migration(migrations.Migration):
    replaces = [("monitor", "0004_i14_roles")]  # its name before migrations were named after their content
    dependencies = [
        ("auth", "0012_alter_user_first_name_max_length"),
        ("monitor", "0003_server_tls"),
    ]

    operations = [migrations.RunPython(create_groups, migrations.RunPython.noop)]
