"""Recorded result sets of servers that cannot run here, served to a source as its connection would."""

from pathlib import Path

from collectors import transactions
from collectors.connection import ServerInfo, parse_version

RECORDED = Path(__file__).parent / "recorded"


def mutex_rows(name: str) -> list[tuple]:
    lines = (RECORDED / name).read_text().splitlines()
    rows = [tuple(line.split("\t")) for line in lines if line and not line.startswith("#")]
    return rows[1:]  # the header


def innodb_status(name: str) -> list[tuple]:
    return [("InnoDB", "", (RECORDED / name).read_text())]


def mysql(version: str, performance_schema: bool = True, tps_basis: str = transactions.EXPLICIT) -> ServerInfo:
    return ServerInfo("mysql", version, parse_version(version), performance_schema, tps_basis)


class Table(list):
    """Recorded rows that also carry their column names (cursor.description), for sources that read by name."""

    def __init__(self, columns: list[str], rows: list[tuple]):
        super().__init__(rows)
        self.columns = columns


def table(name: str) -> Table:
    """A recorded result set as a TSV file: `#` comments, a header line, then rows (\\N is NULL)."""
    lines = [line for line in (RECORDED / name).read_text().splitlines() if line and not line.startswith("#")]
    rows = [tuple(None if cell == r"\N" else cell for cell in line.split("\t")) for line in lines[1:]]
    return Table(lines[0].split("\t"), rows)


class RecordedConnection:
    """Answers each statement with the recorded rows whose key it contains; fails on any other.

    An answer that is an exception (the server's error, e.g. pymysql.err.InternalError(1193, ...))
    is raised instead.
    """

    opened = 0  # connection ids, as the server would number them

    def __init__(self, answers: dict[str, list[tuple]]):
        self.answers = answers
        self.executed: list[str] = []
        RecordedConnection.opened += 1
        self.id = RecordedConnection.opened

    def thread_id(self) -> int:
        return self.id

    def cursor(self):
        return RecordedCursor(self)


class RecordedCursor:
    def __init__(self, conn: RecordedConnection):
        self.conn, self.description = conn, None
        self.rows: list[tuple] = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def execute(self, sql, args=None):
        self.conn.executed.append(sql)
        for key, rows in self.conn.answers.items():
            if key in sql:
                if isinstance(rows, Exception):
                    raise rows
                self.rows = rows
                columns = getattr(rows, "columns", None)
                self.description = [(c,) for c in columns] if columns else None
                return len(rows)
        raise AssertionError(f"no recorded answer for {sql!r}")

    def fetchall(self):
        return self.rows

    def fetchone(self):
        return self.rows[0] if self.rows else None


def digest_answers(version: str, read: int, lost: int = 0, size: int = 10000) -> dict:
    """A MySQL server's answers to the statements source: its digest rows at one read, texts, overflow figures."""
    return {"DIGEST IN (": table(f"mysql-{version}-digest-texts.tsv"),
            "COUNT_STAR": table(f"mysql-{version}-digests-{read}.tsv"),
            "digests_size": [("performance_schema_digests_size", str(size))],
            "digest_lost": [("Performance_schema_digest_lost", str(lost))],
            "setup_instruments": [("YES", "YES", "213", "213")]}  # consumers on, every statement instrument timed
