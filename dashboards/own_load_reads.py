"""What the load under test counted itself, read from its run (analysis/own_load compares it with the server's)."""

from dashboards.analysis.own_load import OwnLoad, from_figures
from servers.models import Run
from workload.external import sysbench_figures


def own_load(run: Run) -> OwnLoad | None:
    """The run's own figures: kept by the stress driver, else read from sysbench's summary; None for neither."""
    return from_figures(run.client_figures or sysbench_figures(run.tool_summary or ""))
