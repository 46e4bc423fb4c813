"""The transactions the driver runs: short, explicit (START TRANSACTION ... COMMIT) so Com_commit counts them."""

import itertools
import random

import pymysql

from workload.schema import HISTORY_SLOTS

# SELECT one account: the point read of every transaction.
SELECT_ACCOUNT = "SELECT balance, label FROM `{schema}`.accounts WHERE id = %s"
# SELECT a section summary: a short index range scan (~1% of the table).
SELECT_SECTION = "SELECT COUNT(*), SUM(balance) FROM `{schema}`.accounts WHERE section = %s"
# SELECT recent history of an account.
SELECT_HISTORY = "SELECT amount, at FROM `{schema}`.history WHERE account_id = %s ORDER BY at DESC LIMIT 5"
# SELECT ... FOR UPDATE: the writer locks the row it changes.
LOCK_ACCOUNT = "SELECT balance FROM `{schema}`.accounts WHERE id = %s FOR UPDATE"
# UPDATE accounts: the write that leaves undo behind for purge.
UPDATE_ACCOUNT = "UPDATE `{schema}`.accounts SET balance = balance + %s, updated_at = NOW(6) WHERE id = %s"
# INSERT history: one ring slot per write, overwritten when the ring wraps.
UPSERT_HISTORY = (
    "INSERT INTO `{schema}`.history (slot, account_id, amount) VALUES (%s, %s, %s) "
    "ON DUPLICATE KEY UPDATE account_id = VALUES(account_id), amount = VALUES(amount), at = NOW(6)"
)

# Deadlock and lock wait timeout: the server rolled back, the driver goes on.
RETRYABLE = {1205, 1213}

WRITE_SHARE = {"ro": 0.0, "rw": 1.0, "mixed": 0.5}  # the share of transactions that write, per mode
MODES = tuple(WRITE_SHARE)

_slots = itertools.count()  # next() on itertools.count is atomic under the GIL


class Transactions:
    """The statements of one session, bound to a schema and a table size."""

    def __init__(self, schema: str, rows: int, mode: str, rng: random.Random | None = None):
        self.sql = {name: text.format(schema=schema) for name, text in _STATEMENTS.items()}
        self.rows = rows
        self.write_share = WRITE_SHARE[mode]
        self.rng = rng or random.Random()

    def run_one(self, cur: pymysql.cursors.Cursor) -> bool:
        """One transaction; True if it committed, False if the server rolled it back."""
        account = self.rng.randint(1, self.rows)
        try:
            cur.execute("START TRANSACTION")
            if self.rng.random() < self.write_share:
                self._write(cur, account)
            else:
                self._read(cur, account)
            cur.execute("COMMIT")
            return True
        except pymysql.MySQLError as exc:
            if exc.args and exc.args[0] in RETRYABLE:
                cur.execute("ROLLBACK")
                return False
            raise

    def _read(self, cur: pymysql.cursors.Cursor, account: int) -> None:
        cur.execute(self.sql["account"], (account,))
        cur.fetchall()
        cur.execute(self.sql["section"], (account % 100,))
        cur.fetchall()
        cur.execute(self.sql["history"], (account,))
        cur.fetchall()

    def _write(self, cur: pymysql.cursors.Cursor, account: int) -> None:
        amount = self.rng.randint(-100, 100)
        cur.execute(self.sql["lock"], (account,))
        cur.fetchall()
        cur.execute(self.sql["update"], (amount, account))
        cur.execute(self.sql["upsert"], (next(_slots) % HISTORY_SLOTS, account, amount))


_STATEMENTS = {
    "account": SELECT_ACCOUNT, "section": SELECT_SECTION, "history": SELECT_HISTORY,
    "lock": LOCK_ACCOUNT, "update": UPDATE_ACCOUNT, "upsert": UPSERT_HISTORY,
}
