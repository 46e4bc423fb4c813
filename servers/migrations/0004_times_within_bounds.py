"""Times of runs and annotations within 1970-2100, by a CHECK constraint.

Rows already outside (stored before the check) are clamped to the nearest bound, and the time they had
is appended to the run's notes or the annotation's text, so nothing is lost and every page can read them.
"""

import datetime

from django.db import migrations, models

import servers.time_bounds

LO, HI = "'1970-01-01 00:00:00+00'::timestamptz", "'2100-01-01 00:00:00+00'::timestamptz"


def clamp(column: str) -> str:
    return f"CASE WHEN {column} IS NULL THEN NULL ELSE LEAST(GREATEST({column}, {LO}), {HI}) END"


def outside(column: str) -> str:
    return f"({column} < {LO} OR {column} > {HI})"


# SET expressions all read the row as it was, so the note names the original times.
CLAMP_RUNS = f"""
UPDATE servers_run SET
    notes = notes || CASE WHEN notes = '' THEN '' ELSE E'\\n' END
        || 'Clamped to 1970-2100 on upgrade; was: started ' || started_at::text
        || COALESCE(', ended ' || ended_at::text, ''),
    started_at = {clamp("started_at")},
    ended_at = {clamp("ended_at")}
WHERE {outside("started_at")} OR {outside("ended_at")}
"""
CLAMP_ANNOTATIONS = f"""
UPDATE servers_annotation SET
    text = LEFT(text || ' (clamped to 1970-2100 on upgrade; was ' || at::text || ')', 500),
    at = {clamp("at")}
WHERE {outside("at")}
"""


class Migration(migrations.Migration):

    dependencies = [
        ('servers', '0003_run_client_figures'),
    ]

    operations = [
        migrations.RunSQL(CLAMP_RUNS, migrations.RunSQL.noop),
        migrations.RunSQL(CLAMP_ANNOTATIONS, migrations.RunSQL.noop),
        migrations.AlterField(
            model_name='annotation',
            name='at',
            field=models.DateTimeField(validators=[servers.time_bounds.within_bounds]),
        ),
        migrations.AlterField(
            model_name='run',
            name='ended_at',
            field=models.DateTimeField(blank=True, null=True, validators=[servers.time_bounds.within_bounds]),
        ),
        migrations.AlterField(
            model_name='run',
            name='started_at',
            field=models.DateTimeField(validators=[servers.time_bounds.within_bounds]),
        ),
        migrations.AddConstraint(
            model_name='annotation',
            constraint=models.CheckConstraint(condition=models.Q(('at__gte', datetime.datetime(1970, 1, 1, 0, 0, tzinfo=datetime.timezone.utc)), ('at__lte', datetime.datetime(2100, 1, 1, 0, 0, tzinfo=datetime.timezone.utc))), name='annotation_at_within_bounds'),
        ),
        migrations.AddConstraint(
            model_name='run',
            constraint=models.CheckConstraint(condition=models.Q(('started_at__gte', datetime.datetime(1970, 1, 1, 0, 0, tzinfo=datetime.timezone.utc)), ('started_at__lte', datetime.datetime(2100, 1, 1, 0, 0, tzinfo=datetime.timezone.utc))), name='run_started_within_bounds'),
        ),
        migrations.AddConstraint(
            model_name='run',
            constraint=models.CheckConstraint(condition=models.Q(('ended_at__isnull', True), models.Q(('ended_at__gte', datetime.datetime(1970, 1, 1, 0, 0, tzinfo=datetime.timezone.utc)), ('ended_at__lte', datetime.datetime(2100, 1, 1, 0, 0, tzinfo=datetime.timezone.utc))), _connector='OR'), name='run_ended_within_bounds'),
        ),
    ]
