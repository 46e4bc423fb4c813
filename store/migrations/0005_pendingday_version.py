"""A version per pending day, from a sequence, so readers can keep what they derived from it."""

from django.db import migrations, models

SEQUENCE = "store_pendingday_version"


class Migration(migrations.Migration):

    dependencies = [
        ('store', '0004_pending_day'),
    ]

    operations = [
        migrations.RunSQL(f"CREATE SEQUENCE {SEQUENCE}", f"DROP SEQUENCE {SEQUENCE}"),
        migrations.AddField(
            model_name='pendingday',
            name='version',
            field=models.BigIntegerField(db_default=models.Func(models.Value(SEQUENCE), function='nextval')),
        ),
    ]
