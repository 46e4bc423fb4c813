"""What became of a source in a poll: one status each, kept in ServerHealth.sources[name]["status"].

The other layers judge these, never the error texts, which are for people.
"""

OK = "ok"
FAILED = "failed"  # it ran and failed
OFF = "off"  # the server has what it reads switched off (performance_schema, a privilege): fixable there
UNSUPPORTED = "unsupported"  # this flavor or version does not have it
NOT_POLLED = "not polled"  # no connection to run it on
CONNECTION_LOST = "connection lost"  # the connection went (in this source or earlier) and could not be reopened
STATUSES = (OK, FAILED, OFF, UNSUPPORTED, NOT_POLLED, CONNECTION_LOST)
UNAVAILABLE = (OFF, UNSUPPORTED)  # cannot run on this server: not a failure of the poll
FAILING = (FAILED, OFF)  # not what the poll expects, shown as such; the unreachable rule speaks for connections
NO_WORDS = "failed in its latest poll"  # what a source that stored no error text says


def status_of(state: dict) -> str:
    """The status of a source's health entry."""
    return state.get("status") or (OK if state.get("ok") else FAILED)


def is_failing(state: dict) -> bool:
    """A fault of the source worth reporting: not one of the server's version, nor of a lost connection."""
    return status_of(state) in FAILING


def off_from_the_start(state: dict) -> bool:
    """Off and never ok on this server since it was first polled: its configuration (a default) never provided
    it, which the pages say with the statement that turns it on; not a failure that happened."""
    return status_of(state) == OFF and not state.get("worked")


def source_error(server: str, name: str, state: dict | None, named: bool = True) -> str:
    """What the source's latest poll said went wrong, for people: "server: source: what", the two named once as
    collectors.outcome.failed words it, or just "what" for a line that names both (named=False); "" when it ran."""
    if not state or status_of(state) == OK:
        return ""
    what = (state.get("error") or "").removeprefix(f"{server}: {name}: ") or NO_WORDS
    return f"{server}: {name}: {what}" if named else what
