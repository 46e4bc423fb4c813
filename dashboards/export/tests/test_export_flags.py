"""Yes/no and width parameters of the CSV exports: a bad value is refused naming it, never read as absent."""

import pytest

from dashboards.export.csv_safe import iso_utc
from testing import dashboards as data

pytestmark = pytest.mark.django_db
START, END = data.TEN_MINUTES
SERIES = {"metrics": "tps", "from": iso_utc(START), "to": iso_utc(END)}


@pytest.fixture
def db1():
    return data.ten_minutes("db1")


WINDOW = {"from": iso_utc(START), "to": iso_utc(END)}
# Every export's yes/no parameters: bom everywhere, full and minmax on the series export.
FLAGS = [(url, extra, "bom") for url, extra in (("/export.csv", SERIES), ("/export/topwaits.csv", WINDOW),
                                                  ("/export/annotations.csv", WINDOW), ("/export/fleet.csv", {}),
                                                  ("/export/statements.csv", WINDOW),
                                                  ("/export/statement.csv", {**WINDOW, "digest": "1"}))]
FLAGS += [("/export.csv", SERIES, "minmax"), ("/export.csv", SERIES, "full")]


@pytest.mark.parametrize("url, extra, name", FLAGS)
@pytest.mark.parametrize("value", ["2", "nosuch", "-1"])
def test_a_flag_that_is_neither_yes_nor_no_is_refused_naming_it(admin_client, db1, url, extra, name, value):
    response = admin_client.get(url, {"server": "db1", **extra, name: value})
    assert response.status_code == 400 and not response.streaming
    assert response.content.decode() == (f"CSV export: {name}={value!r}: use {name}=1 (or true, yes, on) or "
                                         f"{name}=0 (or false, no, off)\n")
    assert admin_client.get(url, {"server": "db1", **extra, name: "1"}).status_code == 200


@pytest.mark.parametrize("value", ["-1", "0", "x", "1.5", "100001", "²"])
def test_a_width_that_is_not_a_whole_number_of_points_is_refused(admin_client, db1, value):
    response = admin_client.get("/export.csv", {"server": "db1", **SERIES, "w": value})
    assert response.status_code == 400
    assert f"w={value!r}: give the chart's width in points, a whole number from 1 to 100,000" in \
        response.content.decode()


@pytest.mark.parametrize("name, value, bom, columns", [
    ("bom", "1", True, 2), ("bom", "off", False, 2), ("bom", "", False, 2),
    ("minmax", "yes", False, 4), ("minmax", "0", False, 2),
])
def test_accepted_flags_still_answer(admin_client, db1, name, value, bom, columns):
    response = admin_client.get("/export.csv", {"server": "db1", **SERIES, "step": "60", name: value})
    body = b"".join(response.streaming_content).decode()
    assert response.status_code == 200
    assert body.startswith("\ufeff") == bom
    assert len(body.lstrip("\ufeff").splitlines()[0].split(",")) == columns  # time, tps (and its min and max)


@pytest.mark.parametrize("name, value, words", [
    ("cond", "7", "rank condition waits (wait/synch/cond/*) with the others"),
    ("cond", "yes", "rank condition waits (wait/synch/cond/*) with the others"),
    ("client", "x", "rank client time with the waits"),
])
def test_the_topwaits_export_refuses_a_toggle_the_waits_page_would_not_read(admin_client, db1, name, value, words):
    response = admin_client.get("/export/topwaits.csv", {"server": "db1", **WINDOW, name: value})
    assert response.status_code == 400 and not response.streaming
    assert response.content.decode() == (f"CSV export: {name}={value!r}: use {name}=1 to {words}, or {name}=0 (or "
                                         "leave it out) to leave them out, as the waits page does by default\n")
    assert admin_client.get("/export/topwaits.csv", {"server": "db1", **WINDOW, name: "1"}).status_code == 200
