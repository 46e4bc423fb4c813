"""The time-partitioned sample tables. Partitions are created by
store.partitions (ahead of time by `maintain`, and on demand by ingest).
"""

from django.db import migrations

# Hot rows: one per server per poll per source; slots keyed by store_layout.
RAW = """
CREATE TABLE store_raw (
    ts timestamptz NOT NULL,
    server_id integer NOT NULL,
    layout_id integer NOT NULL,
    interval_ms integer,
    source_id smallint NOT NULL,
    ivals bigint[],
    fvals double precision[]
) PARTITION BY RANGE (ts);
CREATE UNIQUE INDEX store_raw_poll ON store_raw (server_id, source_id, ts);
"""

# Compacted closed hours: poll times per server/source/hour, values per metric/hour.
COMPACTED = """
CREATE TABLE store_block (
    hour timestamptz NOT NULL,
    server_id integer NOT NULL,
    source_id smallint NOT NULL,
    n integer NOT NULL,
    times bytea NOT NULL
) PARTITION BY RANGE (hour);
CREATE UNIQUE INDEX store_block_key ON store_block (server_id, source_id, hour);
CREATE TABLE store_block_series (
    hour timestamptz NOT NULL,
    server_id integer NOT NULL,
    metric_id integer NOT NULL,
    source_id smallint NOT NULL,
    data bytea NOT NULL
) PARTITION BY RANGE (hour);
CREATE UNIQUE INDEX store_block_series_key ON store_block_series (server_id, metric_id, hour);
"""

# Rollups: 1-minute buckets per metric per hour, 1-hour buckets per metric per day.
ROLLUPS = """
CREATE TABLE store_rollup_1m (
    period timestamptz NOT NULL,
    server_id integer NOT NULL,
    metric_id integer NOT NULL,
    data bytea NOT NULL
) PARTITION BY RANGE (period);
CREATE UNIQUE INDEX store_rollup_1m_key ON store_rollup_1m (server_id, metric_id, period);
CREATE TABLE store_rollup_1h (
    period timestamptz NOT NULL,
    server_id integer NOT NULL,
    metric_id integer NOT NULL,
    data bytea NOT NULL
) PARTITION BY RANGE (period);
CREATE UNIQUE INDEX store_rollup_1h_key ON store_rollup_1h (server_id, metric_id, period);
"""

DROP = "DROP TABLE IF EXISTS store_raw, store_block, store_block_series, store_rollup_1m, store_rollup_1h"


class Migration(migrations.Migration):
    dependencies = [("store", "0001_initial")]

    operations = [migrations.RunSQL(RAW + COMPACTED + ROLLUPS, DROP)]
