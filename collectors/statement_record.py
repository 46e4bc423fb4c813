"""The statement digests a batch of polls read, handed to the store (store.statements).

The statements source leaves each read's kept deltas on its result (Reading.extra); record()
hands the batch here after the samples. A failure here loses only these rows, and says so in the log.
"""

import logging
from datetime import UTC, datetime

from collectors.results import PollResult
from collectors.sources.statements import NAME as SOURCE
from collectors.statement_rows import KEY_SEP, DigestRow, Interval
from store import statements as store

log = logging.getLogger(__name__)


def rows_of(results: list[PollResult]) -> tuple[list[store.StatementRow], dict]:
    rows: list[store.StatementRow] = []
    texts: dict = {}
    for result in results:
        for source in result.sources:
            if source.name == SOURCE and "interval" in source.extra:  # read: ok, or off with what moved before
                add_interval(result.server_id, source.extra.get("interval"), rows, texts)
    return rows, texts


def add_interval(server_id: int, interval, rows: list[store.StatementRow], texts: dict) -> None:
    """One read's rows and new texts, as the store takes them (none for a first read: only a baseline).

    The poll's record and the load of a collection file (collectors.replay) both come here.
    """
    if isinstance(interval, Interval) and interval.seconds is not None:
        at = datetime.fromtimestamp(interval.extra["at"], UTC)
        rows += [stored(server_id, at, interval.seconds, row) for row in interval.rows]
        texts.update({split(key): text for key, text in interval.texts.items()})


def stored(server_id: int, at: datetime, seconds: float, row: DigestRow) -> store.StatementRow:
    return store.StatementRow(server_id, at, round(seconds * 1000), row.schema, row.digest, row.counts,
                              row.max_ps, row.p95_ps, row.p99_ps)


def split(key: str) -> tuple[str, str]:
    schema, _, digest = key.partition(KEY_SEP)
    return schema, digest


def record_statements(results: list[PollResult]) -> None:
    rows, texts = rows_of(results)
    if not rows:
        return
    try:
        store.write(rows, texts)
    except Exception:  # noqa: BLE001 - samples and health are written already; digests are a side record
        log.exception("writing %d statement digest rows failed; they are lost for this interval", len(rows))
