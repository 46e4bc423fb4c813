"""A counter's 1-minute rollup row (its buckets and its per-poll rate extremes, ~1.8 kB on average) is kept
in its table row, not moved out to TOAST: about a fifth of them pass the 2 kB at which PostgreSQL would move
the value out, and reading each of those back costs a second index lookup and heap fetch. MAIN still
compresses a value where that pays and moves it out only when the row could not fit a page.

Rows written before keep their place until compaction or retention rewrites them."""

from django.db import migrations

INLINE = "ALTER TABLE store_rollup_1m ALTER COLUMN data SET STORAGE MAIN"
AS_BEFORE = "ALTER TABLE store_rollup_1m ALTER COLUMN data SET STORAGE EXTENDED"


class Migration(migrations.Migration):
    dependencies = [("store", "0007_statement_hour_rollups")]

    operations = [migrations.RunSQL(INLINE, AS_BEFORE)]
