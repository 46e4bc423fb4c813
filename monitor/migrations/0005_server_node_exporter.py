from django.db import migrations, models


class Migration(migrations.Migration):
    replaces = [("monitor", "0005_i15_node_exporter")]  # its name before migrations were named after their content

    dependencies = [
        ('monitor', '0004_roles'),
    ]

    operations = [
        migrations.AddField(
            model_name='server',
            name='node_exporter_url',
            field=models.URLField(blank=True, help_text="optional: the host's Prometheus node_exporter, e.g. http://db1:9100/metrics, for CPU, load, memory, disk and network beside the database's own figures", max_length=500, verbose_name='node_exporter URL'),
        ),
    ]
