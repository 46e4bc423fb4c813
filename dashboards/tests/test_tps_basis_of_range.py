"""The stability page, purge page, run report and compare say how the range's polls counted TPS, from the
counters stored at those polls, not from the server's health row (its latest polls): a range recorded with
InnoDB's trx counters off stays "explicit transactions only" after they were turned on."""

import json
from datetime import timedelta

import pytest
from django.utils.html import escape

from collectors.models import ServerHealth
from collectors.transactions import CHART_TITLES, DEFINITIONS, EXPLICIT, INNODB_TRX, INNODB_TRX_ON
from servers.models import Run
from store.ingest import write_samples
from store.sample import Sample
from testing import dashboards as data

pytestmark = pytest.mark.django_db
T0 = data.RECENT_T0
POLLS = 12
# As the collector stores them: tps is the delta of the first counter the poll read, stored beside it.
EXPLICIT_POLL = {"tps": 0, "tps_explicit": 0, "qps": 2_000}  # InnoDB counters off: autocommit UPDATEs, no COMMIT
INNODB_POLL = {"tps": 2_000, "tps_innodb": 2_000, "tps_explicit": 0, "qps": 2_000}  # the same load, counted
MIXED = ("TPS counted InnoDB transactions (INNODB_METRICS trx_*_commits) in part of this range and explicit "
         "transactions only (Com_commit + Com_rollback: autocommit statements not counted) in the rest")


def server_with(polls: list[dict], now: str):
    """A MariaDB 10.11 whose polls from T0 on counted as given, and whose health row (its latest poll) says `now`."""
    server = data.make_server("switched", poll_interval=5, flavor="mariadb", version="10.11.19")
    write_samples([Sample(server.pk, "global_status", T0 + timedelta(seconds=5 * i), 5.0, values, frozenset(values))
                   for i, values in enumerate(polls, start=1)])
    ServerHealth.objects.create(server=server, sources={"global_status": {"ok": True, "note": DEFINITIONS[now]}})
    return server


def window(first: int = 0, last: int = POLLS) -> dict:
    """The range holding polls first+1 .. last."""
    return {"from": (T0 + timedelta(seconds=5 * first)).isoformat(),
            "to": (T0 + timedelta(seconds=5 * last + 2)).isoformat()}


def pages(admin_client, server, first: int = 0, last: int = POLLS) -> dict[str, str]:
    run = Run.objects.create(server=server, name="updates", started_at=T0 + timedelta(seconds=5 * first),
                             ended_at=T0 + timedelta(seconds=5 * last))
    return {name: admin_client.get(url, params).content.decode() for name, url, params in (
        ("stability", f"/servers/{server.pk}/stability/", window(first, last)),
        ("purge", f"/servers/{server.pk}/purge/", window(first, last)),
        ("report", f"/runs/{run.pk}/report/", {}))}


def test_a_range_recorded_explicit_only_says_so_after_innodb_was_turned_on(admin_client):
    server = server_with([EXPLICIT_POLL] * POLLS, now=INNODB_TRX)
    for name, body in pages(admin_client, server).items():
        assert escape(DEFINITIONS[EXPLICIT]) in body, name
        assert escape(DEFINITIONS[INNODB_TRX]) not in body, name
        assert escape(INNODB_TRX_ON) in body, name  # the statement that turns a counter of every transaction on
    body = pages(admin_client, server)["stability"]
    verdict = body.split('id="verdict"')[1].split("</section>")[0]
    assert "No transactions counted in this range" in verdict and escape(DEFINITIONS[EXPLICIT]) in verdict
    chart = json.dumps(data.figures(admin_client.get(f"/servers/{server.pk}/stability/", window())))
    assert CHART_TITLES[EXPLICIT] in chart and CHART_TITLES[INNODB_TRX] not in chart


def test_a_range_counted_by_innodb_says_so_after_the_counters_were_turned_off(admin_client):
    server = server_with([INNODB_POLL] * POLLS, now=EXPLICIT)
    for name, body in pages(admin_client, server).items():
        assert escape(DEFINITIONS[INNODB_TRX]) in body, name
        assert escape(DEFINITIONS[EXPLICIT]) not in body and escape(INNODB_TRX_ON) not in body, name


def test_a_range_counted_by_both_says_which_counted_part_of_it(admin_client):
    server = server_with([INNODB_POLL] * 6 + [EXPLICIT_POLL] * 6, now=INNODB_TRX)
    for name, body in pages(admin_client, server).items():
        assert escape(MIXED) in body, name
        assert escape(DEFINITIONS[INNODB_TRX]) not in body and escape(DEFINITIONS[EXPLICIT]) not in body, name
        assert escape(INNODB_TRX_ON) in body, name  # part of it did not count autocommit statements
    assert "Part of this range's TPS was counted by another counter" in pages(admin_client, server)["stability"]
    # The last six polls alone: explicit only, whatever the health row says.
    for name, body in pages(admin_client, server, first=6).items():
        assert escape(DEFINITIONS[EXPLICIT]) in body and escape(MIXED) not in body, name
        assert "counted by another counter" not in body, name


def test_a_range_without_polls_says_what_the_latest_polls_counted(admin_client):
    server = server_with([EXPLICIT_POLL] * POLLS, now=INNODB_TRX)
    later = {"from": (T0 + timedelta(hours=1)).isoformat(), "to": (T0 + timedelta(hours=1, minutes=5)).isoformat()}
    for url in (f"/servers/{server.pk}/stability/", f"/servers/{server.pk}/purge/"):
        body = admin_client.get(url, later).content.decode()
        assert escape(DEFINITIONS[INNODB_TRX]) in body and escape(DEFINITIONS[EXPLICIT]) not in body, url


def compare_body(admin_client, server, first: int, last: int) -> str:
    run = Run.objects.create(server=server, name=f"polls {first}-{last}", started_at=T0 + timedelta(seconds=5 * first),
                             ended_at=T0 + timedelta(seconds=5 * last))
    return admin_client.get("/compare/", {"runs": str(run.pk)}).content.decode()


def test_compare_says_how_each_run_counted_not_how_the_server_counts_now(admin_client):
    server = server_with([INNODB_POLL] * 6 + [EXPLICIT_POLL] * 6, now=INNODB_TRX)
    body = compare_body(admin_client, server, 6, POLLS)  # the explicit-only half
    assert escape(DEFINITIONS[EXPLICIT]) in body and escape(DEFINITIONS[INNODB_TRX]) not in body
    body = compare_body(admin_client, server, 0, 6)  # the InnoDB half
    assert escape(DEFINITIONS[INNODB_TRX]) in body and escape(DEFINITIONS[EXPLICIT]) not in body
    assert escape(MIXED) in compare_body(admin_client, server, 0, POLLS)


def test_a_server_down_keeps_the_fix_its_performance_schema_allows(admin_client):
    """Seen live: MariaDB 10.11 at its defaults (performance_schema OFF), then its monitoring password changed.
    While its polls read nothing the stability page advised UPDATE performance_schema.setup_instruments, which a
    server with performance_schema OFF cannot run; the setting as last read (OFF) says to set it in the
    configuration and restart, as the page said while the server answered."""
    server = data.make_server("down", poll_interval=5, flavor="mariadb", version="10.11.19")
    write_samples([Sample(server.pk, "global_status", T0 + timedelta(seconds=5 * i), 5.0, EXPLICIT_POLL,
                          frozenset(EXPLICIT_POLL)) for i in range(1, POLLS + 1)]
                  + [Sample(server.pk, "variables", T0 + timedelta(seconds=5), None, {"var:performance_schema": 0})])
    lost = {"ok": False, "status": "not polled", "error": "down: cannot connect (access denied)"}
    ServerHealth.objects.create(server=server, sources={"global_status": lost, "pfs_waits": lost})
    body = admin_client.get(f"/servers/{server.pk}/stability/", window()).content.decode()
    assert escape("set performance_schema=ON and performance-schema-instrument='transaction=ON'") in body
    assert "setup_instruments" not in body


def test_a_run_says_how_the_polls_its_figures_use_counted(admin_client):
    """Seen live: InnoDB's trx counters turned on just before a run. The poll read 2 s after the run's start,
    whose delta began before it (counted by Com_commit), lies in the run's range but not in its figures (avg TPS
    is the InnoDB-counted polls' alone); the report and compare said "counted two ways" and advised turning on
    the counters that counted every figure shown."""
    server = server_with([EXPLICIT_POLL] + [INNODB_POLL] * (POLLS - 1), now=INNODB_TRX)
    run = Run.objects.create(server=server, name="just after", started_at=T0 + timedelta(seconds=3),
                             ended_at=T0 + timedelta(seconds=5 * POLLS))
    report = admin_client.get(f"/runs/{run.pk}/report/").content.decode()
    compared = admin_client.get("/compare/", {"runs": str(run.pk)}).content.decode()
    for name, body in (("report", report), ("compare", compared)):
        assert "400.0" in body, name  # 11 polls of 2,000 transactions over 55 s: the InnoDB polls only
        assert escape(DEFINITIONS[INNODB_TRX]) in body and escape(MIXED) not in body, name
        assert "counted two ways" not in body and escape(INNODB_TRX_ON) not in body, name


def test_the_runs_list_says_how_each_run_counted_not_how_the_server_counts_now(admin_client):
    """The runs list labelled every run with the server's latest polls' counter: a run counted by Com_commit
    alone (its 0.0 TPS under an autocommit load) lost its "(explicit transactions only)" once InnoDB's counters
    were on, and runs counted by InnoDB got it after the counters were lost (seen live: the demo's MariaDB
    restarted)."""
    server = server_with([INNODB_POLL] * 6 + [EXPLICIT_POLL] * 6, now=INNODB_TRX)
    for name, first, last in (("explicit half", 6, POLLS), ("innodb half", 0, 6)):
        Run.objects.create(server=server, name=name, started_at=T0 + timedelta(seconds=5 * first),
                           ended_at=T0 + timedelta(seconds=5 * last))
    body = admin_client.get("/runs/").content.decode()
    rows = {name: body.split(f"<strong>{name}</strong>")[1].split("</tr>")[0] for name in ("explicit half",
                                                                                       "innodb half")}
    assert "(explicit transactions only)" in rows["explicit half"]
    assert "explicit transactions only" not in rows["innodb half"]


def test_the_verdict_judges_a_range_from_where_its_counter_changed(admin_client):
    """The pages advise turning InnoDB's trx counters on: the range across that moment counted explicit
    transactions (50 a poll here), then every InnoDB one (2,500 a poll, the same load). Judged as one line it read
    a level change of +4,900 %, the counter's. By hand: the last 20 polls, all counted by InnoDB, are flat."""
    explicit = [{"tps": 50 + (i % 2), "tps_explicit": 50 + (i % 2), "qps": 2_500} for i in range(20)]
    innodb = [{"tps": 2_500 + 10 * (i % 2), "tps_innodb": 2_500 + 10 * (i % 2), "tps_explicit": 50, "qps": 2_500}
              for i in range(20)]
    server = server_with(explicit + innodb, now=INNODB_TRX)
    body = admin_client.get(f"/servers/{server.pk}/stability/", window(0, 40)).content.decode()
    verdict = body.split('id="verdict"')[1].split("</section>")[0]
    first_innodb = T0 + timedelta(seconds=5 * 21)  # polls are numbered from 1: the 21st is InnoDB's first
    assert f"Judged from {first_innodb:%Y-%m-%d %H:%M:%S} UTC on" in verdict and "InnoDB transactions" in verdict
    assert "Steady" in verdict and "Level change" not in verdict and "over 20 points" in verdict
    # One counter throughout: judged whole, and not said.
    body = admin_client.get(f"/servers/{server.pk}/stability/", window(20, 40)).content.decode()
    assert "Judged from" not in body


def test_too_few_polls_since_the_counter_changed_say_why(admin_client):
    """20 polls counted explicit transactions, the last 5 InnoDB's: the verdict judges those 5, too few, and says
    that the counter's change is why (the page said only "Too few polls for a verdict (5; at least 10)")."""
    explicit = [{"tps": 50, "tps_explicit": 50, "qps": 2_500} for _ in range(20)]
    innodb = [{"tps": 2_500, "tps_innodb": 2_500, "tps_explicit": 50, "qps": 2_500} for _ in range(5)]
    server = server_with(explicit + innodb, now=INNODB_TRX)
    body = admin_client.get(f"/servers/{server.pk}/stability/", window(0, 25)).content.decode()
    verdict = body.split('id="verdict"')[1].split("</section>")[0]
    first_innodb = T0 + timedelta(seconds=5 * 21)  # polls are numbered from 1: the 21st is InnoDB's first
    assert (f"Too few polls for a verdict (5; at least 10): judged from {first_innodb:%Y-%m-%d %H:%M:%S} UTC on, "
            "the first point that counted TPS as InnoDB transactions; the 20 points before it") in verdict


def test_a_counter_turned_off_is_judged_from_the_first_poll_counted_without_it():
    from dashboards.basis_change import last_change

    times = [T0 + timedelta(seconds=5 * i) for i in range(10)]
    innodb = [(t, 400.0 if i < 6 else None) for i, t in enumerate(times)]  # off after the 6th poll
    explicit = [(t, 10.0) for t in times]  # stored at every poll
    found = last_change([(INNODB_TRX, innodb), (EXPLICIT, explicit)])
    assert found is not None and found.at == times[6] and found.basis == EXPLICIT
    assert last_change([(EXPLICIT, explicit)]) is None and last_change([]) is None
