"""The purge verdict on a purge too slow for its load, replayed from the polls of a live run
(testing/purge_bound_live.py): purge-bound, never "held" by an autocommit UPDATE one poll caught 1 s old.

Expected values are computed here by numpy on the recorded polls, or were read off the run by hand.
"""

from datetime import datetime

import numpy as np
import pytest

from alerts.readings import purge_reading
from collectors.models import TrxHolder
from store.ingest import write_samples
from store.sample import Sample
from testing.purge_bound_live import (
    COUNTED,
    GROWN,
    HELD_BY,
    HELD_FROM_LOW,
    ONE_SECOND,
    PURGE_COUNTERS,
    RELEASED,
)
from testing.servers import make_server

pytestmark = pytest.mark.django_db
DML = ("Handler_update", "Handler_delete")


def at(hms: str) -> datetime:
    return datetime.fromisoformat(f"2026-11-28T{hms}+00:00")


def replay(server, polls: list = GROWN) -> list[datetime]:
    ts = [at(t) for t, _, _ in polls]
    write_samples(Sample(server.pk, "history_length", t, None, {"history_list_length": v})
                  for t, (_, v, _) in zip(ts, polls, strict=True))
    write_samples(Sample(server.pk, "global_status", t, (t - ts[i - 1]).total_seconds(),
                         {"Handler_update": d, "Handler_delete": 0}, frozenset(DML))
                  for i, (t, (_, _, d)) in enumerate(zip(ts, polls, strict=True)) if d is not None)
    if polls is not GROWN:
        return ts
    for thread, host, started, seen, gone in ONE_SECOND:
        TrxHolder.objects.create(server=server, thread_id=thread, trx_key=f"{thread}/{started}", user="root",
                                 host=host, started_at=at(started), seen_at=at(seen), ended_at=at(gone),
                                 state="RUNNING", isolation="REPEATABLE READ",
                                 statement="UPDATE sbtest1 SET k=k+1 WHERE id=?")
    return ts


def test_an_update_one_poll_caught_holds_no_growth():
    """02:42:48: the poll that caught thread 12's UPDATE 1 s old. The page and the mail said "Held by a read view:
    thread 12, root@127.0.0.1:48044, open since 02:42:47"; the history had grown since 02:40:53 at the hand slope,
    nothing held: purge-bound, with the DML of those seconds (counters off)."""
    server = make_server()
    ts = replay(server)
    n = next(i for i, (t, _, _) in enumerate(GROWN) if t == "02:42:48.459") + 1
    x = np.array([(t - ts[0]).total_seconds() for t in ts[:n]])
    slope = np.polyfit(x, [v for _, v, _ in GROWN[:n]], 1)[0] * 60  # 327,305.7 / min
    dml = sum(d for _, _, d in GROWN[1:n]) / (ts[n - 1] - ts[0]).total_seconds()  # 943,638 rows in 114.883 s
    reading = purge_reading(server.pk, ts[n - 1], 1_000_000)
    assert not reading.startswith("Held"), reading
    assert reading == (f"Purge-bound: no transaction holds it, yet the history length grows {slope:,.1f} / min "
                       f"since 02:40:53 UTC (undo records purged: counters off) while DML adds {dml:,.0f}/s "
                       "(rows updated + deleted) from 02:40:53 to 02:42:48 UTC.")


def test_the_first_poll_of_an_update_one_poll_caught_is_no_holder_either():
    """02:41:33 caught thread 15's UPDATE: the growth since the turn at 02:41:03, 7 polls, is too few to judge."""
    server = make_server()
    replay(server)
    reading = purge_reading(server.pk, at("02:41:33.451"), 1_000_000)
    assert reading.startswith("Growing ") and "with no transaction holding it, over 7 polls since 02:41:03" in reading


def test_a_read_view_open_at_the_poll_before_is_held():
    """The same growth with a transaction open since before the poll at 02:42:43: held, as before."""
    server = make_server()
    ts = replay(server)
    TrxHolder.objects.create(server=server, thread_id=77, trx_key="77/x", user="report", host="10.0.0.9",
                             started_at=at("02:42:40"), seen_at=at("02:42:48.5"), ended_at=None)
    reading = purge_reading(server.pk, ts[[t for t, _, _ in GROWN].index("02:42:48.459")], 1_000_000)
    assert reading.startswith("Held by a read view: thread 77, report@10.0.0.9, open since 2026-11-28 02:42:40 UTC")


def test_purge_bound_gives_the_seconds_its_rates_cover(admin_client):
    """02:50:38 with the purge counters on: the rates are over the counters' polls from their first in the segment
    to the last, 02:47:38-02:50:38. The page and the mail said "purging 1,430 undo records/s while DML adds N/s
    ... since 02:46:48": over those seconds, by hand from the CSV, the DML differs, and purge's counters have
    no reading to take from before 02:47:38."""
    server = make_server()
    ts = replay(server, COUNTED)
    PURGED = ("innodb_metrics:purge_del_mark_records", "innodb_metrics:purge_upd_exist_or_extern_records")
    write_samples(Sample(server.pk, "innodb_metrics", at(t), seconds, dict(zip(PURGED, (marked, updated), strict=True)),
                         frozenset(PURGED)) for t, marked, updated, seconds in PURGE_COUNTERS)
    lo, hi = at(PURGE_COUNTERS[0][0]), at(PURGE_COUNTERS[-1][0])
    purged = sum(m + u for _, m, u, _ in PURGE_COUNTERS[1:]) / sum(s for *_, s in PURGE_COUNTERS[1:])  # 1,429.5/s
    dml = sum(d for t, (_, _, d) in zip(ts, COUNTED, strict=True) if lo < t <= hi) / (hi - lo).total_seconds()
    x = np.array([(t - ts[0]).total_seconds() for t in ts])
    slope = np.polyfit(x, [v for _, v, _ in COUNTED], 1)[0] * 60
    reading = purge_reading(server.pk, hi, 1_000_000)
    assert reading == (f"Purge-bound: no transaction holds it, yet the history length grows {slope:,.1f} / min "
                       f"since 02:46:48 UTC: purging {purged:,.0f} undo records/s while DML adds {dml:,.0f}/s "
                       "(rows updated + deleted) from 02:47:38 to 02:50:38 UTC.")
    page = admin_client.get(f"/servers/{server.pk}/purge/?from=2026-11-28T02:45:00Z&to=2026-11-28T02:50:39Z")
    verdict = page.content.decode().split('id="purge-verdict"')[1].split("</section>")[0]
    assert (f"purging {purged:,.0f} undo records/s while DML adds {dml:,.0f}/s (rows updated + deleted) from "
            "02:47:38 to 02:50:38 UTC (") in verdict


def test_a_read_view_is_named_at_the_first_poll_of_its_rise():
    """03:11:33: 3,797 a poll after 864, thread 31's snapshot open since 03:11:29 (4 s before, after the poll at
    03:11:28): too soon for a trend, the holder is the answer, never "no transaction holding it now"."""
    server = make_server()
    replay(server, HELD_FROM_LOW)
    thread, host, started, seen, gone = HELD_BY
    TrxHolder.objects.create(server=server, thread_id=thread, trx_key="31/x", user="root", host=host,
                             started_at=at(started), seen_at=at(seen), ended_at=at(gone))
    reading = purge_reading(server.pk, at("03:11:33.384"), 1_000_000)
    assert reading == ("Held by a read view: thread 31, root@127.0.0.1:60734, open since 2026-11-28 03:11:29 UTC; "
                       "the history length is 3,797 (too few polls since the turn for a trend).")


def test_the_fall_at_a_release_names_the_read_view_released():
    """03:12:33: 58,736 to 581 in one poll, thread 31 committed at 03:12:29.64 and found gone by that poll. The
    page said "Fell from 58,736 to 581 at 03:12:33 UTC (a read view released, or a stall of purge over)", the
    holders table naming thread 31 below it: the fall is its release, said with it, and so the poll after."""
    server = make_server()
    replay(server, RELEASED)
    thread, host, started, seen, gone = HELD_BY
    TrxHolder.objects.create(server=server, thread_id=thread, trx_key="31/x", user="root", host=host,
                             started_at=at(started), seen_at=at(seen), ended_at=at(gone))
    said = ("Fell from 58,736 to {} at 03:12:33 UTC: thread 31 (root@127.0.0.1:60734), open since 03:11:29 UTC, "
            "was found gone by the poll at 03:12:33 UTC, its read view released, with no transaction holding it now:")
    assert purge_reading(server.pk, at("03:12:33.378"), 1_000_000).startswith(said.format(581))
    assert purge_reading(server.pk, at("03:12:38.379"), 1_000_000).startswith(said.format(572))
