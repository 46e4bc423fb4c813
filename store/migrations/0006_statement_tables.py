"""Statement digests: per-interval rows (partitioned by day, store.partitions.STATEMENT) and each digest's text.

Their own narrow table rather than the sample store's layouts: digests are an open-ended set
(store/statements.py). Columns ordered so that the row has no padding: 8-byte fields after
the two pairs of 4-byte ones.
"""

from django.db import migrations

TABLES = """
CREATE TABLE store_statement_text (
    id serial PRIMARY KEY,
    schema_name text NOT NULL,
    digest text NOT NULL,
    digest_text text NOT NULL DEFAULT '',
    sample_text text NOT NULL DEFAULT '',
    first_stored timestamptz NOT NULL DEFAULT now(),
    UNIQUE (schema_name, digest)
);
CREATE TABLE store_statement (
    ts timestamptz NOT NULL,
    server_id integer NOT NULL,
    digest_id integer NOT NULL,
    interval_ms integer NOT NULL,
    execs bigint NOT NULL,
    time_ps bigint NOT NULL,
    lock_ps bigint NOT NULL,
    errors bigint NOT NULL,
    warnings bigint NOT NULL,
    rows_affected bigint NOT NULL,
    rows_sent bigint NOT NULL,
    rows_examined bigint NOT NULL,
    tmp_disk_tables bigint NOT NULL,
    no_index bigint NOT NULL,
    no_good_index bigint NOT NULL,
    max_ps bigint NOT NULL,
    p95_ps bigint,
    p99_ps bigint
) PARTITION BY RANGE (ts);
CREATE UNIQUE INDEX store_statement_key ON store_statement (server_id, ts, digest_id);
CREATE INDEX store_statement_digest ON store_statement (digest_id, server_id, ts);
"""
DROP = "DROP TABLE IF EXISTS store_statement, store_statement_text"


class Migration(migrations.Migration):
    dependencies = [("store", "0005_pendingday_version")]

    operations = [migrations.RunSQL(TABLES, DROP)]
