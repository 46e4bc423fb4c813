"""Malformed URL parameters get the app's usual answer for a bad value, never a 500.

Pages say what was wrong and show something else (200); exports and the API answer 400 naming the parameter.
"""

import json
from datetime import timedelta

import pytest
from django.test import Client

from dashboards.export.csv_safe import iso_utc
from dashboards.models import ApiToken
from dashboards.url_ids import parse_id
from servers.models import Run
from testing import dashboards as data
from testing.scalability import two_sweeps

pytestmark = pytest.mark.django_db
START, END = data.TEN_MINUTES
# In range as written, but a year beyond 1-9999 once in UTC.
EDGE_TIMES = ["0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-01:00"]
# isdigit() is True for '²'; 5,000 digits is past int()'s limit; 20 digits is past PostgreSQL's bigint.
BAD_IDS = ["²", "1" * 5000, "1" * 20]
SERVER_PAGES = ["stability", "purge", "waits", "pressure", "replication", "host"]


@pytest.fixture
def db1():
    return data.ten_minutes("db1")


@pytest.fixture
def runs():
    baseline, _ = two_sweeps(data.make_server("lab1"), data.RECENT_T0)
    return baseline


def text_of(response) -> str:
    body = b"".join(response.streaming_content) if response.streaming else response.content
    return body.decode()


def window(**extra) -> dict:
    return {"from": iso_utc(START), "to": iso_utc(END), **extra}


def test_parse_id_takes_only_short_ascii_digits():
    assert parse_id("42") == 42 and parse_id(" 7 ") == 7 and parse_id("1" * 18) == int("1" * 18)
    assert [parse_id(t) for t in [*BAD_IDS, "", None, "-1", "1.0", "٣"]] == [None] * 8


@pytest.mark.parametrize("page", SERVER_PAGES)
@pytest.mark.parametrize("name", ["from", "to"])
@pytest.mark.parametrize("when", EDGE_TIMES)
def test_a_page_says_an_edge_time_is_not_a_time(admin_client, db1, page, name, when):
    response = admin_client.get(f"/servers/{db1.pk}/{page}/", {name: when})
    assert response.status_code == 200
    assert "is not a time such as" in response.content.decode()
    good = admin_client.get(f"/servers/{db1.pk}/{page}/", window())
    assert good.status_code == 200 and "is not a time such as" not in good.content.decode()


@pytest.mark.parametrize("when", EDGE_TIMES)
def test_the_explorer_says_an_edge_time_is_not_a_time(admin_client, db1, when):
    response = admin_client.get("/explore/", {"server": db1.pk, "metric": "tps", "from": when})
    assert response.status_code == 200 and "is not a time such as" in response.content.decode()
    assert admin_client.get("/explore/", {"server": db1.pk, "metric": "tps", **window()}).status_code == 200


@pytest.mark.parametrize("name", ["from2", "to2"])
def test_the_waits_page_says_interval_b_needs_two_times(admin_client, db1, name):
    b = {"from2": iso_utc(START), "to2": iso_utc(END), name: EDGE_TIMES[0]}
    response = admin_client.get(f"/servers/{db1.pk}/waits/", window(**b))
    assert response.status_code == 200 and "interval B needs two times" in response.content.decode()


@pytest.mark.parametrize("url, extra", [
    ("/export.csv", {"metrics": "tps"}), ("/export/topwaits.csv", {}), ("/export/holders.csv", {}),
    ("/export/annotations.csv", {}),
])
@pytest.mark.parametrize("name", ["from", "to"])
@pytest.mark.parametrize("when", EDGE_TIMES)
def test_an_export_refuses_an_edge_time_naming_it(admin_client, db1, url, extra, name, when):
    response = admin_client.get(url, {"server": "db1", **extra, **window(**{name: when})})
    assert response.status_code == 400
    assert f"{name}={when!r} is not a time this tool can hold" in response.content.decode()
    assert admin_client.get(url, {"server": "db1", **extra, **window()}).status_code == 200


@pytest.mark.parametrize("url", ["/export.csv", "/export/topwaits.csv", "/export/holders.csv"])
@pytest.mark.parametrize("first, last, name", [
    ("0001-01-01T00:00:00Z", "0001-01-01T01:00:00Z", "from"),
    ("9999-12-31T22:00:00Z", "9999-12-31T23:59:59.999999Z", "from"),
    ("2026-01-05T00:00:00Z", "3000-01-01T00:00:00Z", "to"),
])
def test_an_export_refuses_a_range_near_the_ends_of_time(admin_client, db1, url, first, last, name):
    response = admin_client.get(url, {"server": "db1", "metrics": "tps", "from": first, "to": last})
    assert response.status_code == 400
    assert f"{name}=" in response.content.decode() and "outside the years 1970-2999" in response.content.decode()


@pytest.mark.parametrize("name", ["from2", "to2"])
def test_the_topwaits_export_refuses_an_edge_time_in_interval_b(admin_client, db1, name):
    b = {"from2": iso_utc(START), "to2": iso_utc(END), name: EDGE_TIMES[1]}
    response = admin_client.get("/export/topwaits.csv", {"server": "db1", **window(**b)})
    assert response.status_code == 400 and f"{name}=" in response.content.decode()
    good = admin_client.get("/export/topwaits.csv", {"server": "db1", **window(from2=iso_utc(START), to2=iso_utc(END))})
    assert good.status_code == 200


@pytest.mark.parametrize("step", ["nan", "inf", "-inf", "0", "-60"])
def test_a_step_that_is_not_a_finite_positive_number_is_refused(admin_client, db1, step):
    response = admin_client.get("/export.csv", {"server": "db1", "metrics": "tps", **window(step=step)})
    assert response.status_code == 400 and not response.streaming
    assert f"step must be a positive number of seconds, not {step!r}" in response.content.decode()


@pytest.mark.parametrize("step, said", [("3600", "3600"), ("1e300", "1e+300")])
def test_a_step_longer_than_the_range_is_refused_not_labelled_1970(admin_client, db1, step, said):
    response = admin_client.get("/export.csv", {"server": "db1", "metrics": "tps", **window(step=step)})
    assert response.status_code == 400 and not response.streaming
    assert f"step={said} is longer than the range (600 s)" in response.content.decode()
    rows = data.get_csv(admin_client, "/export.csv", server="db1", metrics="tps", **window(step="60"))
    assert rows[1][0] == iso_utc(START) and len(rows) == 11  # header, then the 10 whole minutes of the range


@pytest.mark.parametrize("bad", BAD_IDS)
def test_run_lists_refuse_what_is_not_a_run_id(admin_client, runs, bad):
    good = ",".join(str(r.pk) for r in runs)
    for url, status, said in [("/reports/compare/", 400, "give run ids"), ("/scalability/", 400, "is not a run id"),
                              ("/export/compare.csv", 400, "give run ids"),
                              ("/export/scalability.csv", 400, "is not a run id")]:
        response = admin_client.get(url, {"runs": f"{runs[0].pk},{bad}"})
        assert (response.status_code, said in text_of(response)) == (status, True), url
        assert admin_client.get(url, {"runs": good}).status_code == 200, url
    # The compare page leaves out what is not an id, as it always has, and asks for runs.
    response = admin_client.get("/compare/", {"runs": bad})
    assert response.status_code == 200 and "Pick two or more runs" in response.content.decode()
    assert admin_client.get("/compare/", {"runs": good, "warmup": bad}).status_code == 200


@pytest.mark.parametrize("bad", BAD_IDS)
def test_server_ids_refuse_what_is_not_an_id(admin_client, db1, bad):
    response = admin_client.get("/export.csv", {"server": bad, "metrics": "tps", **window()})
    assert response.status_code == 400 and "is unknown: give a name or id" in response.content.decode()
    response = admin_client.get("/export/runs.csv", {"server": bad})
    assert response.status_code == 400 and "give the server's id" in response.content.decode()
    assert admin_client.get("/export/runs.csv", {"server": db1.pk}).status_code == 200
    assert admin_client.get("/runs/", {"server": bad}).status_code == 200
    assert admin_client.get("/explore/", {"server": [bad, db1.pk], "metric": "tps"}).status_code == 200
    response = admin_client.get("/export.csv", {"server": "db1", "metrics": "tps", "w": bad, **window()})
    assert response.status_code == 400  # an unreadable chart width is refused, not taken as the default
    assert "give the chart's width in points" in response.content.decode()


@pytest.mark.parametrize("url", ["/export.csv", "/export/holders.csv", "/export/annotations.csv"])
@pytest.mark.parametrize("name", ["\x00", "db1\x00"])
def test_a_server_name_with_a_nul_byte_is_unknown_not_a_500(admin_client, db1, url, name):
    """PostgreSQL refuses a NUL in a text parameter (DataError): the name must never reach it."""
    response = admin_client.get(url, {"server": name, "metrics": "tps", **window()})
    assert response.status_code == 400 and "is unknown: give a name or id" in response.content.decode()


@pytest.mark.parametrize("url", ["/scalability/", "/export/scalability.csv", "/reports/scalability/"])
@pytest.mark.parametrize("name", ["\x00", "baseline\x00"])
def test_a_sweep_name_with_a_nul_byte_is_refused_not_a_500(admin_client, runs, url, name):
    """PostgreSQL refuses a NUL in a text parameter (DataError): the name must never reach it."""
    response = admin_client.get(url, {"sweep": name})
    assert response.status_code == 400 and "holds a NUL byte" in text_of(response)
    assert "sweep=" in text_of(response)


@pytest.mark.parametrize("sweep, label, said", [("baseline\x00", "x", "sweep=&#x27;baseline\\x00&#x27; holds a NUL"),
                                               ("baseline", "x\x00", "label holds a NUL byte")])
def test_labelling_a_sweep_with_a_nul_byte_is_refused_not_a_500(admin_client, runs, sweep, label, said):
    response = admin_client.post("/scalability/", {"sweep": sweep, "label": label})
    assert response.status_code == 400 and said in response.content.decode()
    assert set(Run.objects.filter(sweep="baseline").values_list("label", flat=True)) == {"innodb_flush_neighbors=1"}


@pytest.mark.parametrize("bad", BAD_IDS)
def test_the_api_refuses_what_is_not_a_whole_number(admin_user, runs, bad):
    token = ApiToken.issue(admin_user, "runner")[1]
    client = Client(HTTP_AUTHORIZATION=f"Bearer {token}")

    def post(url: str, body: dict):
        return client.post(url, json.dumps(body), content_type="application/json")

    response = post("/api/annotations", {"run": bad, "text": "x"})
    assert response.status_code == 400 and "'run' must be a whole number" in response.json()["error"]
    response = post("/api/runs", {"name": "r", "server": "lab1", "concurrency": bad})
    assert response.status_code == 400 and "'concurrency' must be a whole number" in response.json()["error"]
    # Digits in a string are refused alike for both: every number of the API is a JSON number.
    response = post("/api/annotations", {"run": str(runs[0].pk), "text": "x"})
    assert response.status_code == 400 and "'run' must be a whole number" in response.json()["error"]
    assert post("/api/annotations", {"run": runs[0].pk, "text": "x"}).status_code == 201


def test_the_fleet_csv_names_the_trend_window_it_computes(admin_client, db1):
    header = data.get_csv(admin_client, "/export/fleet.csv")[0]
    assert "history trend (per min, since the last turn)" in header and "history trend since (UTC)" in header


@pytest.mark.parametrize("page", ["stability", "purge", "waits", "statements"])
def test_a_parameter_named_items_is_kept_in_the_form_not_a_500(admin_client, db1, page):
    """The forms keep the page's parameters as hidden inputs; request.GET.items in a template read ?items=."""
    response = admin_client.get(f"/servers/{db1.pk}/{page}/", {"items": "x", "range": "1h"})
    assert response.status_code == 200
    assert '<input type="hidden" name="items" value="x">' in response.content.decode()


def test_a_compared_wait_with_a_nul_byte_is_said_and_the_top_wait_drawn_not_a_500(admin_client, runs):
    """wait= names the wait drawn: one with a NUL byte is no wait's name (PostgreSQL refuses the text)."""
    response = admin_client.get("/compare/", {"runs": f"{runs[0].pk},{runs[1].pk}", "wait": "a\x00b"})
    assert response.status_code == 200 and "wait= holds a NUL byte" in response.content.decode()
    traces = data.figures(response)["compare-chart"]["data"]
    assert all(t["y"] for t in traces if t["yaxis"] == "y3")  # the runs' top wait, drawn instead


def test_every_paginated_list_answers_400_to_a_page_it_does_not_have(admin_client):
    """/runs/?page=-1 showed page 1 (it read no page, listing the newest 200 runs only) while /?page=-1
    answered 400. 201 runs: two pages of 200, the oldest alone on page 2; page 3, -1 and 'x' are refused alike."""
    server = data.make_server("db1")
    Run.objects.bulk_create(Run(name=f"r{i}", server=server, started_at=START + timedelta(seconds=i))
                            for i in range(201))
    for url, pages in (("/runs/", 2), ("/", 1), ("/servers/", 1)):
        for bad in ("-1", "0", "x", str(pages + 1)):
            answer = admin_client.get(url, {"page": bad})
            assert answer.status_code == 400, (url, bad)
            assert answer.content.decode() == f"page: a whole number from 1 to {pages}, not {bad!r}\n"
    second = admin_client.get("/runs/", {"page": "2"}).content.decode()
    assert "<strong>r0</strong>" in second and "<strong>r1</strong>" not in second and "runs 201–201 of 201" in second
    first = admin_client.get("/runs/").content.decode()
    assert "<strong>r200</strong>" in first and "<strong>r0</strong>" not in first and "runs 1–200 of 201" in first


@pytest.mark.parametrize("bad", ["1e9", "604801", "-5", "ten", "²"])
def test_a_warm_up_the_compare_page_ignores_is_refused_by_its_csvs(admin_client, runs, bad):
    # The compare page says it trims each run's own warm-up instead; a CSV of other figures than asked for would
    # say nothing: 604,801 s is one over the week (7 x 86,400) a warm-up may be.
    good = ",".join(str(r.pk) for r in runs[:2])
    page = admin_client.get("/compare/", {"runs": good, "warmup": bad}).content.decode()
    assert "trimming each run&#x27;s own warm-up instead" in page
    for url in ("/export/compare.csv", "/export/statements.csv"):
        response = admin_client.get(url, {"runs": good, "warmup": bad})
        assert response.status_code == 400 and not response.streaming, url
        assert (f"CSV export: warmup={bad!r} is not a whole number of seconds from 0 to 604,800: give one, or leave"
                " warmup out to trim each run's own warm-up") in response.content.decode(), url
        assert admin_client.get(url, {"runs": good, "warmup": "604800"}).status_code == 200, url
