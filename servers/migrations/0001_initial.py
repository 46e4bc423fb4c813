"""The registry moves from the project package to its own app: the tables are taken over, then renamed."""

import django.contrib.postgres.fields
import django.core.validators
import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    # After every migration that made a foreign key to the old tables, so none is made after the rename.
    dependencies = [
        ('monitor', '0005_server_node_exporter'),
        ('alerts', '0003_growth_span_and_failing_rules'),
        ('collectors', '0002_trx_holders'),
    ]

    operations = [
        # The tables exist (made by the project package's migrations): take them over in state only.
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='Server',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('name', models.CharField(max_length=100, unique=True)),
                        ('host', models.CharField(blank=True, max_length=255)),
                        ('port', models.PositiveIntegerField(default=3306, validators=[django.core.validators.MinValueValidator(1), django.core.validators.MaxValueValidator(65535)])),
                        ('socket', models.CharField(blank=True, max_length=255)),
                        ('user', models.CharField(max_length=80)),
                        ('password_encrypted', models.TextField(blank=True, editable=False)),
                        ('tls_mode', models.CharField(choices=[('disabled', 'disabled'), ('preferred', 'preferred'), ('required', 'required'), ('verify-ca', 'verify-ca'), ('verify-identity', 'verify-identity')], default='preferred', help_text="verify-ca / verify-identity check the server's certificate against the CA file", max_length=20, verbose_name='TLS mode')),
                        ('tls_ca', models.CharField(blank=True, help_text="path on this host to the CA certificate (PEM); empty: the system's CAs", max_length=500, verbose_name='TLS CA file')),
                        ('tls_cert', models.CharField(blank=True, help_text='path to a client certificate (PEM), if the server asks for one', max_length=500, verbose_name='TLS client certificate')),
                        ('tls_key', models.CharField(blank=True, help_text="path to the client certificate's key (PEM)", max_length=500, verbose_name='TLS client key')),
                        ('tags', django.contrib.postgres.fields.ArrayField(base_field=models.CharField(max_length=50), blank=True, default=list, size=None)),
                        ('poll_interval', models.PositiveIntegerField(default=10, help_text='seconds between polls of the cheap sources', validators=[django.core.validators.MinValueValidator(1), django.core.validators.MaxValueValidator(3600)])),
                        ('enabled', models.BooleanField(default=True)),
                        ('node_exporter_url', models.URLField(blank=True, help_text="optional: the host's Prometheus node_exporter, e.g. http://db1:9100/metrics, for CPU, load, memory, disk and network beside the database's own figures", max_length=500, verbose_name='node_exporter URL')),
                        ('flavor', models.CharField(blank=True, choices=[('mysql', 'MySQL'), ('mariadb', 'MariaDB'), ('', 'unknown')], editable=False, max_length=10)),
                        ('version', models.CharField(blank=True, editable=False, max_length=100)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                    ],
                    options={
                        'db_table': 'monitor_server',
                        'ordering': ['name'],
                        'constraints': [models.CheckConstraint(condition=models.Q(models.Q(('host', ''), _negated=True), models.Q(('socket', ''), _negated=True), _connector='OR'), name='server_host_or_socket')],
                    },
                ),
                migrations.CreateModel(
                    name='Run',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('name', models.CharField(max_length=200)),
                        ('started_at', models.DateTimeField()),
                        ('ended_at', models.DateTimeField(blank=True, null=True)),
                        ('notes', models.TextField(blank=True)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('warmup_seconds', models.PositiveIntegerField(default=0, help_text="seconds at the start left out of the run's statistics (warm-up)")),
                        ('concurrency', models.PositiveIntegerField(blank=True, help_text='client threads the load used', null=True)),
                        ('sweep', models.CharField(blank=True, help_text='the sweep this run is a step of', max_length=200)),
                        ('label', models.CharField(blank=True, help_text='what differed in this configuration, e.g. innodb_flush_neighbors=0', max_length=200)),
                        ('command', models.TextField(blank=True, help_text="the external benchmark's command line, when one ran")),
                        ('tool_summary', models.TextField(blank=True, help_text="the external benchmark's own summary")),
                        ('server', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='runs', to='servers.server')),
                    ],
                    options={
                        'db_table': 'monitor_run',
                        'ordering': ['-started_at'],
                    },
                ),
                migrations.CreateModel(
                    name='Annotation',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('at', models.DateTimeField()),
                        ('text', models.CharField(max_length=500)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('run', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='annotations', to='servers.run')),
                        ('server', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='annotations', to='servers.server')),
                    ],
                    options={
                        'db_table': 'monitor_annotation',
                        'ordering': ['at'],
                    },
                ),
                migrations.AddConstraint(
                    model_name='run',
                    constraint=models.CheckConstraint(condition=models.Q(('ended_at__isnull', True), ('ended_at__gte', models.F('started_at')), _connector='OR'), name='run_ends_after_start'),
                ),
            ],
        ),
        migrations.AlterModelTable(name='server', table=None),
        migrations.AlterModelTable(name='run', table=None),
        migrations.AlterModelTable(name='annotation', table=None),
    ]
