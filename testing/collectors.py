"""Collectors test support: a write load of known size on the suite's MariaDB."""

LOAD_DB = "collector_load"
# performance_schema's transaction instrument, which gives TPS its best counter (collectors.transactions).
ENABLE_SUMMARY = "UPDATE performance_schema.setup_instruments SET ENABLED = 'YES' WHERE NAME = 'transaction'"
DISABLE_SUMMARY = "UPDATE performance_schema.setup_instruments SET ENABLED = 'NO' WHERE NAME = 'transaction'"


class Load:
    """Writes on the test MariaDB from root, so the monitoring user's statements are not mixed in."""

    def __init__(self, mariadb):
        self.mariadb = mariadb
        mariadb.execute(f"CREATE DATABASE IF NOT EXISTS {LOAD_DB}",
                        f"CREATE TABLE IF NOT EXISTS {LOAD_DB}.t (id INT AUTO_INCREMENT PRIMARY KEY, v INT)"
                        " ENGINE=InnoDB")

    def transactions(self, commits: int, rollbacks: int = 0) -> None:
        conn = self.mariadb.connect()
        try:
            with conn.cursor() as cur:
                for i in range(commits + rollbacks):
                    cur.execute("BEGIN")
                    cur.execute(f"INSERT INTO {LOAD_DB}.t (v) VALUES (%s)", (i,))
                    cur.execute("COMMIT" if i < commits else "ROLLBACK")
        finally:
            conn.close()

    def updates(self, count: int) -> None:
        """Autocommit updates: each leaves an undo log for purge (history length)."""
        conn = self.mariadb.connect()
        try:
            with conn.cursor() as cur:
                for i in range(count):
                    cur.execute(f"UPDATE {LOAD_DB}.t SET v = v + 1 WHERE id = %s", (i % 5 + 1,))
        finally:
            conn.close()

    def status(self, *names: str) -> dict[str, int]:
        rows = self.mariadb.execute("SHOW GLOBAL STATUS WHERE Variable_name IN ({})".format(
            ", ".join(f"'{n}'" for n in names)))
        return {name: int(value) for name, value in rows}


def values_of(result, source: str) -> dict:
    outcome = next(s for s in result.sources if s.name == source)
    assert outcome.ok, outcome.error
    return outcome.sample.values if outcome.sample else {}


def history_len_metric(mariadb) -> int:
    return mariadb.execute("SELECT COUNT FROM information_schema.INNODB_METRICS"
                           " WHERE NAME = 'trx_rseg_history_len'")[0][0]
