"""Statement digests: one compact row per server and read (partitioned by day, store.partitions.STATEMENT),
and each digest's text.

Their own table rather than the sample store's layouts: digests are an open-ended set
(store/statements.py holds the encoding of ids and data).
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
    interval_ms integer NOT NULL,
    n integer NOT NULL,
    ids bytea NOT NULL,
    data bytea NOT NULL
) PARTITION BY RANGE (ts);
CREATE UNIQUE INDEX store_statement_read ON store_statement (server_id, ts);
"""
DROP = "DROP TABLE IF EXISTS store_statement, store_statement_text"


class Migration(migrations.Migration):
    dependencies = [("store", "0005_pendingday_version")]

    operations = [migrations.RunSQL(TABLES, DROP)]
