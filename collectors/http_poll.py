"""The runner of HTTP sources (node_exporter): fetch the agent's answer, parse it, then the same delta engine.

A failure here (no answer, HTML, a huge body, missing series) is this source's own; the
server's SQL sources run on their connection whatever happens to the agent.
"""

import logging
import time

from collectors import delta
from collectors.http_fetch import HTTP_POOL, Answer, FetchError, HttpPool, Refused
from collectors.outcome import failed, succeeded
from collectors.pool import Target
from collectors.results import PollResult, SourceResult
from collectors.source import Source, SourceError

log = logging.getLogger(__name__)


def run_http_sources(target: Target, sources: list[Source], previous: dict[str, delta.Snapshot],
                     result: PollResult) -> dict[str, delta.Snapshot]:
    new_snapshots = {}
    for source in sources:
        outcome, snapshot = run_http(target, source, previous.get(source.name), result)
        result.sources.append(outcome)
        if snapshot is not None:
            new_snapshots[source.name] = snapshot
    return new_snapshots


def run_http(target: Target, source: Source, previous: delta.Snapshot | None,
             result: PollResult) -> tuple[SourceResult, delta.Snapshot | None]:
    t0 = time.perf_counter()
    urls = source.endpoints(target) if source.endpoints else ()
    if not urls:
        return failed(target, source, t0, "no URL set for this server: add it on the server's edit page"), None
    try:
        answer = fetch(target, urls)
        reading = source.collect(answer, result.info)
    except (FetchError, SourceError) as exc:
        return failed(target, source, t0, str(exc)), None
    except Exception as exc:  # noqa: BLE001 - a parser bug in one source must not stop the others
        log.exception("source %s failed on %s", source.name, target.name)
        return failed(target, source, t0, f"{type(exc).__name__}: {exc}"), None
    outcome, snapshot, _change = succeeded(target, source, reading, previous, reading.boot, t0, answer.at)
    return outcome, snapshot


def fetch(target: Target, urls: tuple[str, ...], pool: HttpPool = HTTP_POOL) -> Answer:
    """The first URL the agent accepts; one it refused (HTTP 400) is not asked again by this worker."""
    candidates = [u for u in urls if u not in pool.refused] or list(urls[-1:])
    for url in candidates[:-1]:
        try:
            return pool.fetch(target.server_id, url)
        except Refused:
            pool.refused.add(url)
    return pool.fetch(target.server_id, candidates[-1])
