"""The driver's own schema on the target: an accounts table and a bounded history table."""

import pymysql

DEFAULT_SCHEMA = "steadystate_stress"
DEFAULT_ROWS = 10_000
HISTORY_SLOTS = 50_000  # the history table wraps around, so it never grows without bound
BATCH = 1_000

# CREATE DATABASE: the driver writes only inside its own schema.
CREATE_DATABASE = "CREATE DATABASE IF NOT EXISTS `{schema}`"
# CREATE TABLE accounts: the rows every transaction reads and the writers update.
CREATE_ACCOUNTS = """
CREATE TABLE IF NOT EXISTS `{schema}`.accounts (
  id INT UNSIGNED NOT NULL PRIMARY KEY,
  section INT UNSIGNED NOT NULL,
  balance BIGINT NOT NULL DEFAULT 0,
  updated_at TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  label VARCHAR(64) NOT NULL,
  KEY by_section (section)
) ENGINE=InnoDB"""
# CREATE TABLE history: one row per write, in a fixed ring of slots.
CREATE_HISTORY = """
CREATE TABLE IF NOT EXISTS `{schema}`.history (
  slot INT UNSIGNED NOT NULL PRIMARY KEY,
  account_id INT UNSIGNED NOT NULL,
  amount INT NOT NULL,
  at TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  KEY by_account (account_id)
) ENGINE=InnoDB"""
# COUNT accounts: how much of the table an earlier run already filled.
COUNT_ACCOUNTS = "SELECT COALESCE(MAX(id), 0) FROM `{schema}`.accounts"
# INSERT accounts: fill the table in batches.
INSERT_ACCOUNTS = "INSERT IGNORE INTO `{schema}`.accounts (id, section, balance, label) VALUES (%s, %s, %s, %s)"


def create_schema(conn: pymysql.Connection, schema: str = DEFAULT_SCHEMA, rows: int = DEFAULT_ROWS) -> None:
    """Create the schema and tables if missing and fill accounts up to `rows` rows."""
    with conn.cursor() as cur:
        cur.execute(CREATE_DATABASE.format(schema=schema))
        cur.execute(CREATE_ACCOUNTS.format(schema=schema))
        cur.execute(CREATE_HISTORY.format(schema=schema))
        cur.execute(COUNT_ACCOUNTS.format(schema=schema))
        have = int(cur.fetchone()[0])
        for start in range(have + 1, rows + 1, BATCH):
            ids = range(start, min(start + BATCH, rows + 1))
            cur.executemany(INSERT_ACCOUNTS.format(schema=schema),
                            [(i, i % 100, 0, f"account {i}") for i in ids])
