"""How long a holder held the oldest transaction: up to the last poll that saw it, never across an outage.

The holder rows are written by collectors.holders.apply, poll by poll, as the collector writes them.
"""

from datetime import UTC, datetime, timedelta

import pytest

from alerts.holders import described
from collectors.holders import apply
from collectors.models import TrxHolder
from testing.dashboards import get_csv, make_server

pytestmark = pytest.mark.django_db
STEP = 10
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def trx(age_s: int) -> dict:
    return {"thread_id": 4711, "age_s": age_s, "isolation": "REPEATABLE READ", "state": "RUNNING",
            "key": "4711/0x42/08:58:20", "statement": None, "user": "report", "host": "10.0.0.7",
            "command": "Sleep", "statement_s": None, "idle": True}


def seen_then_gone(server, gone_at: datetime) -> None:
    """Seen aged 100 s at 09:00:00, then every 10 s up to aged 390 s at 09:04:50; no transaction at gone_at."""
    for i in range(30):
        apply({server.pk: (T0 + timedelta(seconds=STEP * i), trx(100 + STEP * i))})
    apply({server.pk: (gone_at, None)})


def holders_cells(client, server) -> list[str]:
    body = client.get(f"/servers/{server.pk}/purge/?from=2026-03-02T08:50:00Z&to=2026-03-02T10:10:00Z")
    row = body.content.decode().split('<section class="card" id="holders">')[1].split("<tbody>")[1]
    return [c.split("</td>")[0] for c in row.split("</tr>")[0].split("<td>")[1:]]


def held_csv(client, server) -> list[str]:
    rows = get_csv(client, "/export/holders.csv", server=server.pk, **{"from": "2026-03-02T08:50:00Z",
                                                                       "to": "2026-03-02T10:10:00Z"})
    return rows[1][3:7]


def test_it_counts_up_to_the_last_sight_not_to_the_poll_back_after_an_outage(admin_client):
    server = make_server(poll_interval=STEP)
    seen_then_gone(server, datetime(2026, 3, 2, 10, 4, 50, tzinfo=UTC))  # an hour unreachable in between
    # Started 09:00:00 - 100 s = 08:58:20; last seen 09:04:50: 6 min 30 s (390 s) at least, nothing seen after.
    _, _, started, seen, gone, held = holders_cells(admin_client, server)[:6]
    assert (started, seen, gone) == ("2026-03-02 08:58:20", "2026-03-02 09:04:50", "2026-03-02 10:04:50")
    assert held == "at least 6 min 30 s"
    assert held_csv(admin_client, server) == ["2026-03-02T08:58:20Z", "2026-03-02T09:04:50Z",
                                              "2026-03-02T10:04:50Z", "390"]


def test_an_end_seen_by_the_next_poll_is_the_span_without_at_least(admin_client):
    server = make_server(poll_interval=STEP)
    seen_then_gone(server, datetime(2026, 3, 2, 9, 5, 0, tzinfo=UTC))  # the next poll found it gone
    _, _, _, seen, gone, held = holders_cells(admin_client, server)[:6]
    assert (seen, gone, held) == ("2026-03-02 09:04:50", "2026-03-02 09:05:00", "6 min 30 s")
    assert held_csv(admin_client, server)[3] == "390"  # not 400: it ended some time in those 10 s


def test_the_resolved_mail_counts_the_same_span(admin_client):
    server = make_server(poll_interval=STEP)
    seen_then_gone(server, datetime(2026, 3, 2, 10, 4, 50, tzinfo=UTC))
    facts = described(TrxHolder.objects.get(server=server), now=datetime(2026, 3, 2, 10, 5, 0, tzinfo=UTC))
    assert facts["held_s"] == 390 and facts["held_at_least"] is True
    assert facts["ended_at"] == "2026-03-02T10:04:50+00:00"


def test_a_holder_still_open_is_held_at_least_to_its_last_sight(admin_client):
    server = make_server(poll_interval=STEP)
    for i in range(3):
        apply({server.pk: (T0 + timedelta(seconds=STEP * i), trx(100 + STEP * i))})
    # Started 08:58:20, last seen 09:00:20 aged 120 s; the e-mail's `now` an hour later adds nothing.
    facts = described(TrxHolder.objects.get(server=server), now=T0 + timedelta(hours=1))
    assert facts["held_s"] == 120 and facts["held_at_least"] is True
    _, _, _, seen, gone, held = holders_cells(admin_client, server)[:6]
    assert (seen, gone, held) == ("2026-03-02 09:00:20", "still open at the last poll", "at least 2 min")
