"""What became of a source in a poll: one status each, kept in ServerHealth.sources[name]["status"].

The other layers judge these, never the error texts, which are for people.
"""

OK = "ok"
FAILED = "failed"  # it ran and failed
OFF = "off"  # the server has what it reads switched off (performance_schema, a privilege): fixable there
UNSUPPORTED = "unsupported"  # this flavor or version does not have it
NOT_POLLED = "not polled"  # no connection to run it on
CONNECTION_LOST = "connection lost"  # the connection went earlier in the poll and could not be reopened
STATUSES = (OK, FAILED, OFF, UNSUPPORTED, NOT_POLLED, CONNECTION_LOST)
UNAVAILABLE = (OFF, UNSUPPORTED)  # cannot run on this server: not a failure of the poll
FAILING = (FAILED, OFF)  # not what the poll expects, shown as such; the unreachable rule speaks for connections


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
