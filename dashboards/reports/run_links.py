"""The run report's CSV links: each selects exactly the polls the report's figures are computed from."""

from datetime import datetime, timedelta

from dashboards.analysis.step_window import Window
from dashboards.window_reads import WindowPolls, inside_polls
from servers.models import Server
from store import levels


def series_range(server: Server, window: Window, polls: WindowPolls | None = None) -> tuple[datetime, datetime]:
    """from and to for /export.csv (one row per poll) holding the window's inside polls and no other.

    The export puts each poll on the row of the interval multiple nearest it and keeps the rows labelled
    inside [from, to]: a row's time may lie up to half an interval from its poll. From half the first
    inside poll's interval back (the poll before it is out, as the top waits link has it: sums_from); to
    the window's end, where the figures stop reading every source: the last TPS poll as the end left out
    the node_exporter and wait polls read milliseconds after it in the same round. A row labelled past the
    end holds no poll read by then and is left out. A run past the raw retention is summed from whole
    rollup buckets: its own window. polls: the window's, read with TPS.
    """
    found = inside_polls(server.pk, window, polls) if levels.finest(window.start) == levels.FULL else None
    if found is None:
        return window.start, window.end
    return found.first - timedelta(seconds=found.first_seconds / 2), max(window.end, found.last)
