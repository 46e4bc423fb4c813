"""Statement digests' hourly rollups (store.statement_hours): per server and hour, each digest's sums, reads,
highest max, newest quantiles and first/last read; and the hours whose reads changed since they were rolled up.

A day-long or week-long top reads 24 or 168 rollup rows instead of 1,440 or 10,080 reads.
"""

from django.db import migrations

TABLES = """
CREATE TABLE store_statement_hour (
    hour timestamptz NOT NULL,
    server_id integer NOT NULL,
    reads integer NOT NULL,
    n integer NOT NULL,
    ids bytea NOT NULL,
    data bytea NOT NULL
) PARTITION BY RANGE (hour);
CREATE UNIQUE INDEX store_statement_hour_key ON store_statement_hour (server_id, hour);
CREATE TABLE store_statement_pending (
    server_id integer NOT NULL,
    hour timestamptz NOT NULL,
    PRIMARY KEY (server_id, hour)
);
"""
# The hours of the reads stored before: rolled up by the next maintenance passes like new ones.
PENDING = """
INSERT INTO store_statement_pending (server_id, hour)
SELECT DISTINCT server_id, date_trunc('hour', ts - interval '1 microsecond', 'UTC') FROM store_statement
ON CONFLICT DO NOTHING
"""
DROP = "DROP TABLE IF EXISTS store_statement_hour, store_statement_pending"


class Migration(migrations.Migration):
    dependencies = [("store", "0006_statement_tables")]

    operations = [migrations.RunSQL(TABLES, DROP), migrations.RunSQL(PENDING, migrations.RunSQL.noop)]
