# The fleet's replica column: lag and thread state at each server's last replication read.
"""A replica's state at its last poll, from the newest replica.* values of the store.

The replication source writes, per channel, replica.io_running and replica.sql_running
(1 = Yes) and replica.lag_s only while the server reports a lag (Seconds_Behind_Master is
NULL with the SQL thread stopped). So the newest lag of a channel can be older than its
newest thread state: such a lag is from before a stop and is not shown as the lag now.
"""

from dataclasses import dataclass
from datetime import datetime

from collectors.sources.replication import IO, LAG, SQL


@dataclass(frozen=True)
class ReplicaNow:
    at: datetime
    lag_s: float | None  # the largest lag over the channels read at `at`; None when none reported one
    stopped: tuple[str, ...]  # "I/O" or "SQL" thread names not running, with their channel


def replica_now(latest: dict[tuple[int, str], tuple[datetime, float]], server_id: int) -> ReplicaNow | None:
    """None where the server has never been read as a replica."""
    states = {name: found for (sid, name), found in latest.items()
              if sid == server_id and name.split(":", 1)[0] in (IO, SQL)}
    if not states:
        return None
    at = max(ts for ts, _ in states.values())
    stopped = tuple(sorted(thread_label(name) for name, (ts, value) in states.items() if ts == at and not value))
    lags = [value for (sid, name), (ts, value) in latest.items()
            if sid == server_id and name.split(":", 1)[0] == LAG and ts == at]
    return ReplicaNow(at, max(lags) if lags else None, stopped)


def thread_label(name: str) -> str:
    metric, _, channel = name.partition(":")
    thread = "I/O" if metric == IO else "SQL"
    return f"{thread} ({channel})" if channel else thread
