"""Rules and events point at the server registry in its own app."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('alerts', '0003_growth_span_and_failing_rules'),
        ('servers', '0001_initial'),
    ]

    operations = [
        migrations.AlterField(
            model_name='event',
            name='server',
            field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='alert_events', to='servers.server'),
        ),
        migrations.AlterField(
            model_name='rule',
            name='server',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='alert_rules', to='servers.server'),
        ),
    ]
