"""Recorded result sets of servers that cannot run here, served to a source as its connection would."""

from pathlib import Path

from collectors.connection import ServerInfo, parse_version

RECORDED = Path(__file__).parent / "recorded"


def mutex_rows(name: str) -> list[tuple]:
    lines = (RECORDED / name).read_text().splitlines()
    rows = [tuple(line.split("\t")) for line in lines if line and not line.startswith("#")]
    return rows[1:]  # the header


def innodb_status(name: str) -> list[tuple]:
    return [("InnoDB", "", (RECORDED / name).read_text())]


def mysql(version: str, performance_schema: bool = True) -> ServerInfo:
    return ServerInfo("mysql", version, parse_version(version), performance_schema)


class RecordedConnection:
    """Answers each statement with the recorded rows whose key it contains; fails on any other."""

    def __init__(self, answers: dict[str, list[tuple]]):
        self.answers = answers
        self.executed: list[str] = []

    def cursor(self):
        return RecordedCursor(self)


class RecordedCursor:
    def __init__(self, conn: RecordedConnection):
        self.conn, self.rows = conn, []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def execute(self, sql, args=None):
        self.conn.executed.append(sql)
        for key, rows in self.conn.answers.items():
            if key in sql:
                self.rows = rows
                return len(rows)
        raise AssertionError(f"no recorded answer for {sql!r}")

    def fetchall(self):
        return self.rows

    def fetchone(self):
        return self.rows[0] if self.rows else None
