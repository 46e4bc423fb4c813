"""An external benchmark (sysbench, mysqlslap, ...) as a run: what its command line and output say.

Pure functions of the argv and the output text; running the command is the
bench_run command's job.
"""

import re
import shlex
from dataclasses import dataclass

# Options naming the client threads, per tool: sysbench --threads (--num-threads before 1.0),
# mysqlslap --concurrency / -c (a comma list runs one round per value).
THREAD_OPTIONS = {"sysbench": ("--threads", "--num-threads"), "mysqlslap": ("--concurrency", "-c")}
DEFAULT_THREADS = 1  # both tools' default
WARMUP_OPTIONS = {"sysbench": ("--warmup-time",)}
# Options whose value is a password: never stored or shown.
SECRET = re.compile(r"^(--[\w-]*password|-p)(=?)(.+)$")
SECRET_FLAGS = re.compile(r"^--[\w-]*password$")
# Where each tool's own summary starts in its output.
SUMMARY_STARTS = {"sysbench": "SQL statistics:", "mysqlslap": "Benchmark"}
TAIL_LINES = 40
SUMMARY_LIMIT = 100_000
THREADS_PLACEHOLDER = "{threads}"


@dataclass(frozen=True)
class ToolCall:
    tool: str  # the program's base name
    concurrency: int | None
    warmup: int | None  # the tool's own warm-up, seconds
    note: str = ""  # why the concurrency could not be told


def tool_name(argv: list[str]) -> str:
    return argv[0].rsplit("/", 1)[-1] if argv else ""


def tool_argv(argv: list[str]) -> list[str]:
    """The benchmark's own argv: from the first known tool on, so that a wrapper (`nice -n 10 sysbench ...`,
    `taskset -c 1 sysbench ...`, `numactl ...`) still has its threads, warm-up and summary read."""
    for i, arg in enumerate(argv):
        if tool_name([arg]) in THREAD_OPTIONS:
            return argv[i:]
    return argv


def option_value(argv: list[str], names: tuple[str, ...]) -> str | None:
    """The last value of any of `names`, given as --name=V, --name V or -cV."""
    found = None
    for i, arg in enumerate(argv[1:], start=1):
        for name in names:
            if arg.startswith(name + "="):
                found = arg[len(name) + 1:]
            elif arg == name and i + 1 < len(argv):
                found = argv[i + 1]
            elif len(name) == 2 and arg.startswith(name) and len(arg) > 2 and arg[2] != "-":
                found = arg[2:]
    return found


def read_call(argv: list[str]) -> ToolCall:
    argv = tool_argv(argv)
    tool = tool_name(argv)
    threads = option_value(argv, THREAD_OPTIONS.get(tool, ()))
    warmup = option_value(argv, WARMUP_OPTIONS.get(tool, ()))
    warmup_s = int(warmup) if warmup and warmup.isdigit() else None
    if threads is None:
        if tool in THREAD_OPTIONS:
            return ToolCall(tool, DEFAULT_THREADS, warmup_s)
        return ToolCall(tool, None, warmup_s, f"{tool}: its threads are unknown here, pass --concurrency")
    if not threads.isdigit() or int(threads) < 1:
        return ToolCall(tool, None, warmup_s, f"{tool} runs several concurrency levels ({threads}): "
                                               "run one per level to draw a curve")
    return ToolCall(tool, int(threads), warmup_s)


def masked(argv: list[str]) -> str:
    """The command line to record: passwords replaced by ***."""
    out = []
    for i, arg in enumerate(argv):
        if i and SECRET_FLAGS.match(argv[i - 1]) and not arg.startswith("-"):
            out.append("***")
            continue
        match = SECRET.match(arg) if i else None
        out.append(f"{match[1]}{match[2]}***" if match else arg)
    return shlex.join(out)


def tool_summary(tool: str, output: str) -> str:
    """The tool's own summary block (sysbench from 'SQL statistics:'), else the output's last lines."""
    start = SUMMARY_STARTS.get(tool)
    at = output.rfind(start) if start else -1
    text = output[at:] if at >= 0 else "\n".join(output.rstrip().splitlines()[-TAIL_LINES:])
    return text.strip().replace("\x00", "")[:SUMMARY_LIMIT]  # PostgreSQL text holds no NUL


def with_threads(argv: list[str], threads: int) -> list[str]:
    """A sweep's step: {threads} in the command replaced by the level."""
    return [arg.replace(THREADS_PLACEHOLDER, str(threads)) for arg in argv]


# sysbench's summary lines: "transactions: 1200 (399.70 per sec.)", "avg: 2.50", "95th percentile: 3.25".
SYSBENCH_FIGURES = {
    "transactions": re.compile(r"^\s*transactions:\s+(\d+)\s+\(([\d.]+) per sec\.\)", re.M),
    "queries": re.compile(r"^\s*queries:\s+(\d+)\s+\(([\d.]+) per sec\.\)", re.M),
    "errors": re.compile(r"^\s*ignored errors:\s+(\d+)", re.M),
    "seconds": re.compile(r"^\s*total time:\s+([\d.]+)s", re.M),
    "latency_avg_ms": re.compile(r"^\s*avg:\s+([\d.]+)", re.M),
    "latency_p95_ms": re.compile(r"^\s*95th percentile:\s+([\d.]+)", re.M),
}


def sysbench_figures(summary: str) -> dict:
    """sysbench's own counts, rates and response times (ms) from its summary; {} where it has none.

    Its rates cover its whole run after its own --warmup-time (sysbench 1.1), as the run's window does.
    """
    found = {key: pattern.search(summary) for key, pattern in SYSBENCH_FIGURES.items()}
    transactions, queries = found["transactions"], found["queries"]
    if not transactions:
        return {}
    figures: dict = {"tool": "sysbench", "transactions": int(transactions[1]), "tps": float(transactions[2])}
    if queries:
        figures["qps"] = float(queries[2])
    for key in ("errors", "seconds", "latency_avg_ms", "latency_p95_ms"):
        match = found[key]
        if match:
            figures[key] = int(match[1]) if key == "errors" else float(match[1])
    return figures


# sysbench's --report-interval lines: "[ 15s ] thds: 2 tps: 870.83 qps: ...", the rate over the interval ending then.
SYSBENCH_REPORT = re.compile(r"^\[\s*(\d+(?:\.\d+)?)s \] thds: \d+ tps: ([\d.]+)", re.M)


def sysbench_after_warmup(output: str, warmup: int) -> dict:
    """sysbench's own TPS after a warm-up it does not know of (bench_run --warmup; sysbench 1.0 has no
    --warmup-time), from its interval reports: the transactions of the intervals that began at or after the
    warm-up (each rate times its interval) over their seconds. {} where no report covers the warm-up's end."""
    reports = [(float(t), float(tps)) for t, tps in SYSBENCH_REPORT.findall(output)]
    spans = [(start, end, tps) for (start, _), (end, tps) in zip([(0.0, 0.0), *reports], reports, strict=False)]
    kept = [(end - start, tps) for start, end, tps in spans if start >= warmup]
    if not kept or not any(start <= warmup for start, _end, _tps in spans):
        return {}
    seconds = sum(s for s, _ in kept)
    transactions = sum(s * tps for s, tps in kept)
    return {"tool": "sysbench", "tps": transactions / seconds, "transactions": round(transactions),
            "seconds": seconds, "warmup": warmup}
