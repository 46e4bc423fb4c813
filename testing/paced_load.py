"""A load paced by the clock: each session commits one small transaction at fixed times (an open loop).

Its TPS is the schedule's, not the machine's speed: a session that falls behind (the CPU taken by other work)
catches up at once, so a minute's mean holds, and notes when it was late: a machine that stalls for seconds
holds the load back then, a dip the verdict rightly reads. The stress driver's sessions pause between transactions (a
closed loop): on a host other work slows, its TPS falls with them and truly drifts, which a verdict of
drift then rightly reads.
"""

import threading
import time
from datetime import UTC, datetime, timedelta

SCHEMA = "steadystate_paced"
LATE = 0.25  # seconds behind its schedule that a transaction starts late: the machine held the load back


class PacedLoad:
    def __init__(self, mariadb, sessions: int, per_session: float, seconds: float) -> None:
        self.mariadb, self.sessions, self.period, self.seconds = mariadb, sessions, 1.0 / per_session, seconds
        self.commits = [0] * sessions
        self.error: Exception | None = None
        self.late: list[tuple[datetime, datetime]] = []  # (due, started) of each transaction started LATE or later
        mariadb.execute(
            f"CREATE DATABASE IF NOT EXISTS {SCHEMA}",
            f"DROP TABLE IF EXISTS {SCHEMA}.t",
            f"CREATE TABLE {SCHEMA}.t (id INT PRIMARY KEY, v INT) ENGINE=InnoDB",
            f"INSERT INTO {SCHEMA}.t SELECT seq, 0 FROM {SCHEMA}.seq_1_to_{sessions}",
        )

    def late_within(self, start: datetime, end: datetime) -> bool:
        """Whether the load fell behind its schedule between these times (a dip of TPS then was the machine's)."""
        return any(due <= end and started >= start for due, started in self.late)

    def run(self) -> None:
        """All sessions for `seconds`, then return (the first error is kept in `error`)."""
        start = time.monotonic()
        threads = [threading.Thread(target=self._session, args=(i, start), daemon=True) for i in range(self.sessions)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

    def _session(self, index: int, start: float) -> None:
        conn = self.mariadb.connect()
        try:
            with conn.cursor() as cur:
                first = start + index * self.period / self.sessions  # the sessions' commits spread evenly
                for k in range(round(self.seconds / self.period)):
                    ahead = first + k * self.period - time.monotonic()
                    time.sleep(max(0.0, ahead))
                    if ahead <= -LATE:
                        now = datetime.now(UTC)
                        self.late.append((now + timedelta(seconds=ahead), now))
                    cur.execute("BEGIN")
                    cur.execute(f"UPDATE {SCHEMA}.t SET v = v + 1 WHERE id = %s", (index + 1,))
                    cur.execute("COMMIT")
                    self.commits[index] += 1
        except Exception as exc:  # noqa: BLE001 - the test reports it
            self.error = self.error or exc
        finally:
            conn.close()
