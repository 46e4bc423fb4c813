"""What the collectors say while PostgreSQL is away: a line when the outage starts, once a minute while it
lasts and when PostgreSQL answers again.

Dispatch (every second) and each batch fall back to the registry's copy and used to say so every time: two
lines a second (libpq's message has a hint line) for as long as the outage lasted, burying `up`'s own
"postgresql is not running any more".
"""

import logging

from store.outage import OutageLog

log = logging.getLogger("collectors.fleet_cache")

OUTAGE = OutageLog(
    log,
    "collectors: PostgreSQL unreachable ({reason}); polling the registry as last read and trying PostgreSQL again at"
    " every dispatch tick (1 s) and batch (said once a minute while it lasts)",
    "collectors: PostgreSQL answers again; the registry is read from it")
