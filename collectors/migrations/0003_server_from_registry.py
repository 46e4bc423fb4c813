"""Health, poll records and holders point at the server registry in its own app."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('collectors', '0002_trx_holders'),
        ('servers', '0001_initial'),
    ]

    operations = [
        migrations.AlterField(
            model_name='pollrecord',
            name='server',
            field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='poll_records', to='servers.server'),
        ),
        migrations.AlterField(
            model_name='serverhealth',
            name='server',
            field=models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='health', to='servers.server'),
        ),
        migrations.AlterField(
            model_name='trxholder',
            name='server',
            field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='trx_holders', to='servers.server'),
        ),
    ]
