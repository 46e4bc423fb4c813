"""A NUL character (%00) given in the address is never written back into the page: not into a form's hidden inputs
(the range toolbar, the toggles, the waits page's second interval), a field's value or a link that keeps the view.
The page says which parameters it left out, and keeps the others."""

import html
from datetime import timedelta

import pytest
from django.http import QueryDict

from dashboards.query_params import dropped_note, kept_params
from servers.models import Run
from testing import dashboards as data

pytestmark = pytest.mark.django_db
SERVER_PAGES = ["stability", "purge", "waits", "pressure", "replication", "host", "statements"]
NUL = "a\x00b"


@pytest.fixture
def db1():
    return data.ten_minutes("db1")


def hostile(**more: str) -> dict:
    """A parameter no page reads holding a NUL, one every page keeps (w), and the page's own."""
    return {"x": NUL, "w": "800", **more}


def body_of(response) -> str:
    assert response.status_code < 500
    return response.content.decode()


def assert_not_echoed(page: str, listed: str = "x= holds") -> None:
    assert "\x00" not in page
    said = f"{listed} a NUL character (%00), which no parameter takes: left out of this page's forms and links."
    assert f'<p class="error dropped-params" role="alert">{said}</p>' in html.unescape(page)


@pytest.mark.parametrize("name", SERVER_PAGES)
def test_a_server_page_keeps_its_parameters_but_never_a_nul(admin_client, db1, name):
    toggles = {"cond": "1", "client": "1", "monitoring": "1", "dip": "0.4", "threshold": "5000", "from2": NUL,
               "to2": NUL}
    page = body_of(admin_client.get(f"/servers/{db1.pk}/{name}/", hostile(**toggles)))
    assert_not_echoed(page, "from2=, to2=, x= hold")
    assert 'name="w" value="800"' in page  # the range toolbar, and the forms of the page, keep the others


@pytest.mark.parametrize("url, params, listed", [
    ("/", {"cond": NUL, "tag": "t"}, "cond=, x= hold"),
    ("/explore/", {"pattern": "tps\x00", "metric": "tps\x00"}, "metric=, pattern=, x= hold"),
    ("/compare/", {"a": "1\x00", "a_label": "nul\x00", "b": "2\x00", "b_label": NUL, "wait": NUL, "cond": "1"},
     "a=, a_label=, b=, b_label=, wait=, x= hold"),
    ("/scalability/", {"runs": "1,\x00", "knee": NUL}, "knee=, runs=, x= hold"),
    ("/runs/", {"sort": NUL}, "sort=, x= hold"),
])
def test_the_other_pages_never_write_a_nul_back(admin_client, db1, url, params, listed):
    assert_not_echoed(body_of(admin_client.get(url, hostile(**params))), listed)


def test_a_run_report_keeps_its_toggles_without_a_nul(admin_client, db1):
    run = Run.objects.create(name="r", server=db1, started_at=data.TEN_MINUTES[0],
                             ended_at=data.TEN_MINUTES[0] + timedelta(minutes=5))
    assert_not_echoed(body_of(admin_client.get(f"/runs/{run.pk}/report/", hostile(cond="1", monitoring="1"))))


def test_a_nul_in_a_parameters_name_is_left_out_too(admin_client, db1):
    page = body_of(admin_client.get(f"/servers/{db1.pk}/waits/?a%00b=1&top=7"))
    assert_not_echoed(page, "a%00b= holds")
    assert 'name="top" value="7"' in page


def test_it_keeps_every_value_but_those_with_a_nul_and_names_them():
    get = QueryDict("top=7&x=a%00b&server=1&server=2%00&y%00=1&from=z")
    assert kept_params(get, ("from",)) == [("top", "7"), ("server", "1")]
    assert dropped_note(get) == ("server=, x=, y%00= hold a NUL character (%00), which no parameter takes: left out "
                                 "of this page's forms and links.")
    assert dropped_note(QueryDict("top=7&x=")) is None


@pytest.mark.parametrize("url, data, field", [
    ("/servers/add/", {"name": NUL, "host": "db.example", "port": "3306", "user": "u", "password": "p",
                       "tags": "a,b\x00", "poll_interval": "10", "enabled": "on", "action": "save"}, "name"),
    ("/alerts/rules/new/", {"name": NUL, "kind": "threshold", "metric": "tps\x00", "threshold": "1"}, "name"),
])
def test_a_form_shown_again_with_its_errors_never_writes_a_nul_back(admin_client, url, data, field):
    """Its field refuses the NUL, and the form shown with that error wrote the value back as it was typed."""
    page = body_of(admin_client.post(url, data))
    assert "\x00" not in page
    assert f'name="{field}" value=' not in page  # the field shows nothing rather than what it refused
    assert "Null characters are not allowed." in page
