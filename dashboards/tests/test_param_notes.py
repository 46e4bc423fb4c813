"""A page parameter the page cannot use as given is named in a note, with what is shown instead (never silently).

The stability page's w (chart width), dip and waits; the waits page's top; the compare page's runs and warmup.
"""

import html
import re
from datetime import timedelta

import pytest
from django.http import QueryDict

from dashboards.timerange import max_points, read_points
from servers.models import Run
from testing.dashboards import make_server, write_polls

pytestmark = pytest.mark.django_db
NOTE = re.compile(r'<p class="error param-problem" role="alert">(.*?)</p>')


@pytest.fixture
def server():
    server = make_server()
    write_polls(server, 90)
    return server


@pytest.fixture
def two_runs():
    server = make_server()
    start = write_polls(server, 30)
    return [Run.objects.create(name=f"r{i}", server=server, started_at=start + timedelta(minutes=2 * i),
                               ended_at=start + timedelta(minutes=2 * i + 1)) for i in (1, 2)]


def notes_of(response) -> list[str]:
    assert response.status_code == 200
    return [html.unescape(n) for n in NOTE.findall(response.content.decode())]


@pytest.mark.parametrize("w, points, said", [
    ("abc", 1200, "w='abc' is not a chart width in whole pixels: drawing at most 1,200 points instead."),
    ("1e9", 1200, "w='1e9' is not a chart width in whole pixels: drawing at most 1,200 points instead."),
    ("0", 100, "w='0' is outside the chart widths 100-2,400 pixels: drawing at most 100 points instead."),
    ("-5", 100, "w='-5' is outside the chart widths 100-2,400 pixels: drawing at most 100 points instead."),
    ("100000", 2400, "w='100000' is outside the chart widths 100-2,400 pixels: drawing at most 2,400 points instead."),
])
def test_it_says_a_chart_width_it_cannot_use(admin_client, server, w, points, said):
    assert read_points(QueryDict(f"w={w}")) == (points, said)
    response = admin_client.get(f"/servers/{server.pk}/stability/", {"w": w})
    assert notes_of(response) == [said]
    assert response.context["csv"].endswith(f"&w={points}")  # the chart's CSV link carries the points drawn


def test_a_good_or_absent_width_gets_no_note_and_max_points_is_unchanged(admin_client, server):
    for query, points in [("w=800", 800), ("w=100", 100), ("w=2400", 2400), ("", 1200), ("w=", 1200)]:
        assert read_points(QueryDict(query)) == (points, None), query
        assert max_points(QueryDict(query)) == points, query
    assert max_points(QueryDict("w=abc")) == 1200 and max_points(QueryDict("w=-5")) == 100
    assert notes_of(admin_client.get(f"/servers/{server.pk}/stability/", {"w": "800"})) == []


@pytest.mark.parametrize("dip, fraction, said", [
    ("nan", 0.5, "dip='nan' is not a fraction of the median such as 0.5: using 0.5 instead."),
    ("inf", 0.5, "dip='inf' is not a fraction of the median such as 0.5: using 0.5 instead."),
    ("abc", 0.5, "dip='abc' is not a fraction of the median such as 0.5: using 0.5 instead."),
    ("7", 0.95, "dip='7' is outside 0.05-0.95 of the median: using 0.95 instead."),
    ("0", 0.05, "dip='0' is outside 0.05-0.95 of the median: using 0.05 instead."),
])
def test_the_stability_page_says_a_dip_fraction_it_cannot_use(admin_client, server, dip, fraction, said):
    response = admin_client.get(f"/servers/{server.pk}/stability/", {"dip": dip})
    assert notes_of(response) == [said]
    assert response.context["fraction"] == fraction
    assert f'name="dip" step="0.05" min="0.05" max="0.95" value="{fraction}"' in response.content.decode()


@pytest.mark.parametrize("waits, shown, said", [
    ("abc", 8, "waits='abc' is not a whole number: showing the top 8 waits instead."),
    ("1.5", 8, "waits='1.5' is not a whole number: showing the top 8 waits instead."),
    ("100", 20, "waits='100' is outside 1-20: showing the top 20 waits instead."),
    ("0", 1, "waits='0' is outside 1-20: showing the top 1 waits instead."),
])
def test_the_stability_page_says_a_waits_count_it_cannot_use(admin_client, server, waits, shown, said):
    response = admin_client.get(f"/servers/{server.pk}/stability/", {"waits": waits})
    assert notes_of(response) == [said]
    assert response.context["n_waits"] == shown and f"top {shown} over the range" in response.content.decode()


def test_the_stability_page_names_every_bad_value_and_none_that_is_good(admin_client, server):
    response = admin_client.get(f"/servers/{server.pk}/stability/", {"w": "x", "waits": "x", "dip": "x"})
    assert [n.split("=")[0] for n in notes_of(response)] == ["w", "waits", "dip"]
    good = admin_client.get(f"/servers/{server.pk}/stability/", {"w": "900", "waits": "3", "dip": "0.3"})
    assert notes_of(good) == [] and (good.context["n_waits"], good.context["fraction"]) == (3, 0.3)
    assert notes_of(admin_client.get(f"/servers/{server.pk}/stability/", {"dip": "", "waits": ""})) == []


@pytest.mark.parametrize("top, shown, said", [
    ("abc", 20, "top='abc' is not a whole number: showing the top 20 waits instead."),
    ("100000", 200, "top='100000' is outside 5-200: showing the top 200 waits instead."),
    ("1", 5, "top='1' is outside 5-200: showing the top 5 waits instead."),
])
def test_the_waits_page_says_a_row_count_it_cannot_use(admin_client, server, top, shown, said):
    response = admin_client.get(f"/servers/{server.pk}/waits/", {"top": top})
    assert notes_of(response) == [said]
    assert response.context["limit"] == shown and f"Top {shown} waits" in response.content.decode()


def test_the_waits_page_gives_no_note_for_a_good_count_nor_for_w_which_it_does_not_read(admin_client, server):
    response = admin_client.get(f"/servers/{server.pk}/waits/", {"top": "50"})
    assert notes_of(response) == [] and response.context["limit"] == 50
    assert notes_of(admin_client.get(f"/servers/{server.pk}/waits/", {"w": "abc"})) == []  # no chart: w is unused


def test_the_compare_page_names_what_is_not_a_run_id_and_compares_the_rest(admin_client, two_runs):
    r1, r2 = two_runs
    response = admin_client.get("/compare/", {"runs": f"{r1.pk},abc,{r2.pk}"})
    assert notes_of(response) == [f"runs: 'abc' is not a run id: comparing only runs {r1.pk}, {r2.pk}."]
    assert response.context["runs"] == [r1, r2]


def test_the_compare_page_names_a_run_that_does_not_exist(admin_client, two_runs):
    r1, r2 = two_runs
    missing = r2.pk + 1000
    response = admin_client.get("/compare/", {"runs": [f"{r1.pk},-1", str(missing)]})
    assert notes_of(response) == [f"runs: '-1' is not a run id; there is no run {missing}: comparing only run {r1.pk}."]
    assert response.context["runs"] == [r1]
    alone = admin_client.get("/compare/", {"runs": "abc"})
    assert notes_of(alone) == ["runs: 'abc' is not a run id: no run left to compare."]
    assert "Pick two or more runs" in alone.content.decode()


@pytest.mark.parametrize("warmup", ["abc", "-5", "1.5", str(7 * 86400 + 1)])
def test_the_compare_page_says_a_warmup_it_cannot_use(admin_client, two_runs, warmup):
    response = admin_client.get("/compare/", {"runs": ",".join(str(r.pk) for r in two_runs), "warmup": warmup})
    assert notes_of(response) == [f"warmup={warmup!r} is not a whole number of seconds from 0 to 604,800:"
                                  " trimming each run's own warm-up instead."]
    assert response.context["warmup"] is None and "warmup=" not in response.context["csv"]


def test_the_compare_page_gives_no_note_for_good_values(admin_client, two_runs):
    runs = ",".join(str(r.pk) for r in two_runs)
    for query in [{"runs": runs}, {"runs": runs, "warmup": "0"}, {"runs": runs + ",", "warmup": "30"}, {}]:
        assert notes_of(admin_client.get("/compare/", query)) == [], query
    assert admin_client.get("/compare/", {"runs": runs, "warmup": "30"}).context["warmup"] == 30
