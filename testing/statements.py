"""Statement digest rows of known size, written through the store's public writer (store.statements)."""

from dataclasses import dataclass
from datetime import datetime, timedelta

from store.statements import COUNTERS, REST, StatementRow, write

MS = 10**9  # picoseconds


@dataclass(frozen=True)
class Shape:
    """One digest's figures in every read: executions and the latency of each."""

    digest: str
    text: str
    execs: int
    latency_ps: int
    rows_examined: int = 0
    rows_sent: int = 0
    errors: int = 0
    no_index: int = 0
    schema: str = "app"

    def counts(self) -> tuple[int, ...]:
        values = {"execs": self.execs, "time_ps": self.execs * self.latency_ps, "rows_examined": self.rows_examined,
                  "rows_sent": self.rows_sent, "errors": self.errors, "no_index": self.no_index}
        return tuple(values.get(name, 0) for name in COUNTERS)


SLEEPY = Shape("d-sleep", "SELECT SLEEP ( ? ) FROM `t` WHERE `id` = ?", 10, 50 * MS, 10, 10)
POINT = Shape("d-point", "SELECT `v` FROM `t` WHERE `id` = ?", 1000, MS // 10, 1000, 1000)
UPDATE = Shape("d-update", "UPDATE `t` SET `v` = `v` + ? WHERE `k` = ?", 300, MS, 3000, 0, errors=1, no_index=300)
SHAPES = (SLEEPY, POINT, UPDATE)
REST_EXECS, REST_PS = 7, 7 * MS  # the 'everything else' row of each read


def write_reads(server_id: int, start: datetime, reads: int, shapes=SHAPES, interval_s: int = 60,
                scale: int = 1) -> None:
    """reads reads every interval_s after start (the first ends at start + interval_s), each with the shapes."""
    rows = []
    for k in range(1, reads + 1):
        ts = start + timedelta(seconds=interval_s * k)
        for shape in shapes:
            counts = tuple(c * scale for c in shape.counts())
            rows.append(StatementRow(server_id, ts, interval_s * 1000, shape.schema, shape.digest, counts,
                                     shape.latency_ps * scale))
        rest = (REST_EXECS, REST_PS) + (0,) * (len(COUNTERS) - 2)
        rows.append(StatementRow(server_id, ts, interval_s * 1000, *REST, rest, REST_PS))
    write(rows, {(s.schema, s.digest): (s.text, "") for s in shapes})
