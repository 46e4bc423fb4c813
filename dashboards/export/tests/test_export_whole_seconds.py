"""CSV rows on whole seconds, multiples of the step from the epoch: two exports of polls read at a sub-second
offset join row for row, and seconds=1 gives what each row's rate was computed over."""

from datetime import datetime, timedelta

import pytest

from dashboards.export.csv_safe import iso_utc
from store.ingest import write_samples
from store.sample import Sample
from testing import dashboards as data

pytestmark = pytest.mark.django_db
T0 = data.RECENT_T0
OFFSET = 5.828133  # the polls' phase: seconds after a multiple of 10 (as a worker's polls drift)
# Deltas of polls every ~10 s (jittering by tens of ms), at these seconds after the one before.
INTERVALS = [10.0, 10.04, 9.97, 10.01, 9.98, 10.0, 10.03, 9.99, 10.0, 9.98, 10.02, 10.0]
DELTAS = [1000, 1200, 800, 1500, 900, 1000, 1100, 1300, 700, 1000, 1000, 900]


@pytest.fixture
def db1(admin_user, client):
    client.force_login(admin_user)
    server = data.make_server("db1", poll_interval=10)
    at, samples = T0 + timedelta(seconds=OFFSET), []
    samples.append(Sample(server.pk, "global_status", at, None, {"tps": 0}, frozenset({"tps"})))
    for interval, delta in zip(INTERVALS, DELTAS, strict=True):
        at += timedelta(seconds=interval)
        samples.append(Sample(server.pk, "global_status", at, interval, {"tps": delta}, frozenset({"tps"})))
    write_samples(samples)
    return server


def export(client, start: float, end: float, **params) -> list[list[str]]:
    return data.get_csv(client, "/export.csv", server="db1", metrics="tps",
                        **{"from": iso_utc(T0 + timedelta(seconds=start)), "to": iso_utc(T0 + timedelta(seconds=end)),
                           **params})


def test_rows_are_whole_multiples_of_the_interval_and_two_exports_join(client, db1):
    first = export(client, 0.0, 130.0, full="1")
    second = export(client, 3.3, 127.9, full="1")  # another request's range: another phase of its ends
    for rows in (first, second):
        times = [datetime.fromisoformat(r[0].replace("Z", "+00:00")) for r in rows[1:]]
        assert times and all(t.microsecond == 0 and t.timestamp() % 10 == 0 for t in times)
    assert [r for r in first[1:] if r[0] in {s[0] for s in second[1:]}] == second[1:]
    # By hand: the poll read at 10k + 5.83 s (+- jitter) is nearest the row of 10k + 10 s (whole, from 10 s).
    rates = {iso_utc(T0 + timedelta(seconds=10 * (k + 2))): DELTAS[k] / INTERVALS[k] for k in range(12)}
    got = {r[0]: float(r[1]) for r in first[1:] if r[1]}
    assert got == pytest.approx(rates, rel=1e-5)


def test_seconds_covered_lets_a_row_be_recomputed_by_hand(client, db1):
    rows = export(client, 0.0, 130.0, step="60", seconds="1", mode="delta")
    assert rows[0] == ["time (UTC)", "db1 tps (per 60 s)", "db1 tps (per 60 s) seconds covered"]
    # The minute from T0 + 60 s holds the polls read at 65.9, 75.9, ..., 115.9 s: deltas 4 to 9 in the list.
    minute = {r[0]: r[1:] for r in rows[1:]}[iso_utc(T0 + timedelta(seconds=60))]
    assert float(minute[0]) == sum(DELTAS[5:11])
    assert float(minute[1]) == pytest.approx(sum(INTERVALS[5:11]))
    rate = export(client, 0.0, 130.0, step="60", seconds="1")
    by_hand = {r[0]: float(r[1]) for r in rate[1:] if r[1]}
    assert by_hand[iso_utc(T0 + timedelta(seconds=60))] == pytest.approx(sum(DELTAS[5:11]) / sum(INTERVALS[5:11]),
                                                                         rel=1e-5)


def test_a_step_that_is_not_whole_seconds_is_refused(client, db1):
    response = client.get("/export.csv", {"server": "db1", "metrics": "tps", "step": "2.5",
                                          "from": iso_utc(T0), "to": iso_utc(T0 + timedelta(seconds=120))})
    assert response.status_code == 400 and "step='2.5': give a whole number of seconds" in response.content.decode()


def test_a_range_ending_between_a_rows_time_and_its_poll_has_no_empty_last_row(client, admin_user):
    """Polls read 0.3 s after each multiple of 5 s (as a worker's polls run just after the beat's tick): an export
    to 16:28:00 (or to now, 1.3 s after a row's time) reached the row of 16:28:00, whose poll comes at
    16:28:00.3, after the range. Its empty cells said "no poll", a gap that never was."""
    client.force_login(admin_user)
    server = data.make_server("late", poll_interval=5)
    polls = [T0 + timedelta(seconds=0.3 + 5 * k) for k in range(13)]
    write_samples([Sample(server.pk, "global_status", polls[0], None, {"tps": 0}, frozenset({"tps"}))] +
                  [Sample(server.pk, "global_status", at, 5.0, {"tps": 100 + k}, frozenset({"tps"}))
                   for k, at in enumerate(polls[1:], start=1)])
    rows = data.get_csv(client, "/export.csv", server="late", metrics="tps", mode="delta",
                        **{"from": iso_utc(T0), "to": iso_utc(T0 + timedelta(seconds=60))})
    # By hand: the polls inside the range are those read at 0.3 .. 55.3 s, one a row, each on the row of the
    # whole 5 s nearest it: the first a baseline (no delta, an empty cell, as documented), then deltas 101 .. 111.
    # The poll of the 60 s row is read at 60.3 s, after the range: no row for it.
    assert [r[0] for r in rows[1:]] == [iso_utc(T0 + timedelta(seconds=5 * k)) for k in range(12)]
    assert [r[1] for r in rows[1:]] == [""] + [str(100 + k) for k in range(1, 12)]


def test_a_last_row_holding_a_poll_inside_the_range_is_kept(client, admin_user):
    """A host's polls come seconds before the database's: the last row's database poll (60.3 s) is after the
    range but its host poll (56.0 s) is inside it, and that value is written, with the database's cell empty."""
    client.force_login(admin_user)
    server = data.make_server("host", poll_interval=10)
    db = [T0 + timedelta(seconds=0.3 + 10 * k) for k in range(7)]
    host = [T0 + timedelta(seconds=6.0 + 10 * k) for k in range(6)]
    write_samples([Sample(server.pk, "global_status", db[0], None, {"tps": 0}, frozenset({"tps"}))] +
                  [Sample(server.pk, "global_status", at, 10.0, {"tps": 100 + k}, frozenset({"tps"}))
                   for k, at in enumerate(db[1:], start=1)] +
                  [Sample(server.pk, "node_exporter", at, 10.0, {"load1": 1.5 + k}, frozenset())
                   for k, at in enumerate(host)])
    rows = data.get_csv(client, "/export.csv", server="host", metrics="tps,load1", mode="delta",
                        **{"from": iso_utc(T0), "to": (T0 + timedelta(seconds=60.1)).isoformat()})
    # By hand: rows of 10 s centred on the database's polls (0.3 + 10k s), labelled at the whole 10 s. The host
    # poll of 56.0 s sits in the row of 60 s, whose database poll (60.3 s) is after the range's end (60.1 s):
    # that row holds load1 = 1.5 + 5 and no tps delta.
    header, last = rows[0], rows[-1]
    assert last[0] == iso_utc(T0 + timedelta(seconds=60))
    assert [last[header.index(c)] for c in header if c.endswith("tps (per interval)")] == [""]
    assert [last[header.index(c)] for c in header if c.endswith("load1 (value)")] == ["6.5"]


def test_a_poll_inside_the_range_is_kept_on_its_row_labelled_past_the_range(client, admin_user):
    """A poll read at :37.2 sits on the row of :40 (the whole 10 s nearest it): an export to :37.5 left that row
    out as labelled past the range, and with it a poll read inside the range."""
    client.force_login(admin_user)
    server = data.make_server("end", poll_interval=10)
    polls = [T0 + timedelta(seconds=7.2 + 10 * k) for k in range(4)]
    write_samples([Sample(server.pk, "global_status", polls[0], None, {"tps": 0}, frozenset({"tps"}))] +
                  [Sample(server.pk, "global_status", at, 10.0, {"tps": 100 + k}, frozenset({"tps"}))
                   for k, at in enumerate(polls[1:], start=1)])

    def rows(end: float) -> list[list[str]]:
        return data.get_csv(client, "/export.csv", server="end", metrics="tps", mode="delta",
                            **{"from": iso_utc(T0), "to": (T0 + timedelta(seconds=end)).isoformat()})[1:]

    # By hand: the polls of 7.2, 17.2, 27.2 and 37.2 s sit on the rows of 10, 20, 30 and 40 s; the first is a
    # baseline (an empty cell), then deltas 101, 102, 103. To 37.5 s holds all four polls, so all four rows.
    assert rows(37.5) == [[iso_utc(T0 + timedelta(seconds=10 * (k + 1))), "" if k == 0 else str(100 + k)]
                          for k in range(4)]
    # To 36.9 s, the poll of 37.2 s is after the range: its row (empty, labelled past the range) is left out.
    assert rows(36.9) == rows(37.5)[:3]


def test_a_server_first_polled_minutes_into_the_range_has_rows_on_its_polls(client, admin_user):
    """A range of the last 15 minutes on a server added 5 minutes ago: no poll within 10 intervals of the range's
    start. Its rows were the whole intervals from the start, each poll (read 0.27 s before a multiple of 5 s) on
    the row before its nearest, and an export to now ended on an empty row for the 5 s before each poll."""
    client.force_login(admin_user)
    server = data.make_server("new", poll_interval=5)
    polls = [T0 + timedelta(seconds=64.73 + 5 * k) for k in range(12)]  # from 64.73 s: 12 intervals in
    write_samples([Sample(server.pk, "global_status", polls[0], None, {"tps": 0}, frozenset({"tps"}))] +
                  [Sample(server.pk, "global_status", at, 5.0, {"tps": 100 + k}, frozenset({"tps"}))
                   for k, at in enumerate(polls[1:], start=1)])

    def deltas(start: float, end: float) -> dict[str, str]:
        rows = data.get_csv(client, "/export.csv", server="new", metrics="tps", mode="delta",
                            **{"from": iso_utc(T0 + timedelta(seconds=start)),
                               "to": (T0 + timedelta(seconds=end)).isoformat()})
        return {r[0]: r[1] for r in rows[1:]}

    # By hand: the poll read at 64.73 + 5k s is nearest the row of 65 + 5k s; the first is a baseline (empty), then
    # deltas 101 .. 111 on the rows of 70 .. 120 s. The range to 122.6 s ends before the row of 125 s.
    got = deltas(0.0, 122.6)
    assert {t: v for t, v in got.items() if v} == {iso_utc(T0 + timedelta(seconds=65 + 5 * k)): str(100 + k)
                                                    for k in range(1, 12)}
    assert list(got)[-1] == iso_utc(T0 + timedelta(seconds=120))
    # The same polls from a start 4.73 s before the first: the two exports join row for row.
    near = deltas(60.0, 122.6)
    assert near == {t: v for t, v in got.items() if t in near}


def test_an_export_asked_just_after_the_newest_poll_of_a_server_polled_only_later_ends_on_it(client, admin_user):
    """The stability page's host CSV, of the last hour on a server polled for 10 minutes: its grid is taken from a
    poll near the range's end, so the newest poll (read at :57.2) sits on the row of :60. An export to now, asked
    0.3 s after that poll, left the row out as labelled past the range, and the newest poll with it."""
    client.force_login(admin_user)
    server = data.make_server("later", poll_interval=10)
    polls = [T0 + timedelta(seconds=607.2 + 10 * k) for k in range(6)]  # 60 intervals into the range
    write_samples([Sample(server.pk, "global_status", polls[0], None, {"tps": 0}, frozenset({"tps"}))] +
                  [Sample(server.pk, "global_status", at, 10.0, {"tps": 100 + k}, frozenset({"tps"}))
                   for k, at in enumerate(polls[1:], start=1)])
    rows = data.get_csv(client, "/export.csv", server="later", metrics="tps", mode="delta",
                        **{"from": iso_utc(T0), "to": (T0 + timedelta(seconds=657.5)).isoformat()})
    # By hand: the poll read at 607.2 + 10k s is nearest the row of 610 + 10k s; the first is a baseline (empty),
    # then deltas 101 .. 105 on the rows of 620 .. 660 s. The last, of 660 s, holds the poll of 657.2 s.
    assert {r[0]: r[1] for r in rows[1:] if r[1]} == {iso_utc(T0 + timedelta(seconds=610 + 10 * k)): str(100 + k)
                                                      for k in range(1, 6)}
    assert rows[-1] == [iso_utc(T0 + timedelta(seconds=660)), "105"]
