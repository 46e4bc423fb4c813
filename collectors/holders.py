"""The oldest transaction's holder as events: a row opens when the holder changes and ends when it goes.

The oldest_trx source leaves its reading's holder on the poll result; record() hands the
batch here. One open row per server (a partial unique index): the same transaction seen
again only moves seen_at; another one (or none, or one younger than MIN_AGE_S) ends it at
that poll's time. Whether a holder seen by one poll only held anything is the purge verdict's
to judge (dashboards.reads.held_a_poll): it names one at a turn's first polls.
"""

import logging
from datetime import datetime, timedelta

from django.db import IntegrityError, transaction

from collectors.models import TrxHolder
from collectors.results import PollResult
from collectors.sources.oldest_trx import NAME as SOURCE
from store.binary_params import fetch_all

log = logging.getLogger(__name__)

TEXT_FIELDS = {"user": 128, "host": 255, "isolation": 20, "statement": 200, "statement_missing": 400}
# Whether any of the servers has an open row.
ANY_OPEN = f"SELECT 1 FROM {TrxHolder._meta.db_table} WHERE server_id = ANY(%b::bigint[]) AND ended_at IS NULL LIMIT 1"
# Younger than this (whole seconds as the server counts them), the oldest transaction is everyday OLTP
# that holds nothing back: a row per poll for those would bury the holders that matter. INNODB_TRX's
# trx_started and NOW() are whole seconds, so a statement of milliseconds that crosses a second reads
# 1 s old; 2 s is the first age that proves a transaction open for over a second.
MIN_AGE_S = 2


def readings(results: list[PollResult]) -> dict[int, tuple[datetime, dict | None]]:
    """server id -> (read time, holder or None) for the polls in which oldest_trx succeeded."""
    found = {}
    for result in results:
        for source in result.sources:
            if source.name == SOURCE and source.ok and "holder" in source.extra:
                at = source.sample.ts if source.sample is not None else result.started_at
                found[result.server_id] = (at, worth_keeping(source.extra["holder"]))
    return found


def worth_keeping(holder: dict | None) -> dict | None:
    return holder if holder is not None and holder["age_s"] >= MIN_AGE_S else None


def record_holders(results: list[PollResult]) -> None:
    """Open, extend or end the holder rows of the batch's servers; a failure here loses only this."""
    found = readings(results)
    if not found:
        return
    try:
        apply(found)
    except Exception:  # noqa: BLE001 - samples and health are written already; holders are a side record
        log.exception("recording the oldest-transaction holders of %d servers failed", len(found))


def apply(found: dict[int, tuple[datetime, dict | None]]) -> None:
    if all(holder is None for _, holder in found.values()) and not fetch_all(ANY_OPEN, [list(found)]):
        return  # the usual batch: nothing held, nothing to end (one plain statement, no ORM query)
    open_rows = {h.server_id: h for h in TrxHolder.objects.filter(server_id__in=list(found), ended_at=None)}
    for server_id, (at, holder) in found.items():
        try:
            with transaction.atomic():  # a savepoint: a server deleted since its poll fails alone
                apply_one(server_id, open_rows.get(server_id), at, holder)
        except IntegrityError:
            log.info("server %d was deleted since its poll: its oldest-transaction holder is not recorded", server_id)


def apply_one(server_id: int, current: TrxHolder | None, at: datetime, holder: dict | None) -> None:
    if current is not None and holder is not None and current.trx_key == holder["key"][:120]:
        extend(current, holder, at)
        return
    if current is not None:
        current.ended_at = at
        current.save(update_fields=["ended_at"])
    if holder is not None:
        TrxHolder.objects.create(server_id=server_id, **fields(holder, at))


def started(holder: dict, at: datetime) -> datetime:
    return at - timedelta(seconds=holder["age_s"])


def extend(row: TrxHolder, holder: dict, at: datetime) -> None:
    row.seen_at = at
    update = ["seen_at"]
    if holder["statement"] and not row.statement:  # it was between statements when first seen
        row.statement, row.idle, row.statement_missing = fields(holder, at)["statement"], holder["idle"], ""
        update += ["statement", "idle", "statement_missing"]
    row.save(update_fields=update)


def fields(holder: dict, at: datetime) -> dict:
    state = ", ".join(part for part in (holder["state"], holder["command"]) if part)
    values = {"user": holder["user"] or "", "host": holder["host"] or "", "isolation": holder["isolation"],
              "statement": holder["statement"] or "", "statement_missing": holder.get("statement_missing") or ""}
    values = {key: value[:TEXT_FIELDS[key]] for key, value in values.items()}
    return {**values, "thread_id": holder["thread_id"], "trx_key": holder["key"][:120], "state": state[:100],
            "idle": holder["idle"], "started_at": started(holder, at), "seen_at": at}
