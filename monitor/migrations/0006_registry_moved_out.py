"""The registry left the project package for its own app (servers): forget its models here, keep the tables."""

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('alerts', '0004_server_from_registry'),
        ('collectors', '0003_server_from_registry'),
        ('monitor', '0005_server_node_exporter'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.RemoveField(
                    model_name='run',
                    name='server',
                ),
                migrations.DeleteModel(
                    name='Annotation',
                ),
                migrations.DeleteModel(
                    name='Run',
                ),
                migrations.DeleteModel(
                    name='Server',
                ),
            ],
        ),
    ]
