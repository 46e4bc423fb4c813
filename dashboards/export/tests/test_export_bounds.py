"""What one export may ask for: no step finer than the polls, no more than EXPORT_MAX_CELLS values."""


import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client

from dashboards.export.csv_safe import iso_utc
from dashboards.models import ApiToken
from testing import dashboards as data

pytestmark = pytest.mark.django_db
START, END = data.TEN_MINUTES


@pytest.fixture
def db1():
    return data.ten_minutes("db1")


@pytest.fixture
def clients(admin_user, client) -> dict:
    client.force_login(admin_user)
    token = ApiToken.issue(admin_user, "script")[1]
    return {"page": client, "token": Client(HTTP_AUTHORIZATION=f"Bearer {token}")}


def params(**extra) -> dict:
    return {"server": "db1", "metrics": "tps,Threads_running", "from": iso_utc(START), "to": iso_utc(END), **extra}


@pytest.mark.parametrize("how", ["page", "token"])
def test_a_step_below_the_poll_interval_is_refused(db1, clients, how):
    response = clients[how].get("/export.csv", params(step="2"))
    assert response.status_code == 400
    assert "step=2 is below the poll interval of db1 (10 s)" in response.content.decode()
    assert clients[how].get("/export.csv", params(step="10")).status_code == 200


@pytest.mark.parametrize("how", ["page", "token"])
def test_an_export_beyond_the_cell_limit_is_refused_before_any_row(db1, clients, how, settings):
    # Full resolution: 61 polls x 2 columns = 122 values.
    settings.EXPORT_MAX_CELLS = 121
    response = clients[how].get("/export.csv", params(full="1"))
    assert response.status_code == 400 and not response.streaming
    assert "about 61 rows x 2 columns = 122 values, above the limit of 121" in response.content.decode()
    settings.EXPORT_MAX_CELLS = 122
    assert clients[how].get("/export.csv", params(full="1")).status_code == 200


def test_export_csv_has_the_same_bounds(db1, settings):
    args = ["--server", "db1", "--metrics", "tps,Threads_running", "--from", iso_utc(START), "--to", iso_utc(END)]
    with pytest.raises(CommandError, match="step=5 is below the poll interval of db1"):
        call_command("export_csv", *args, "--step", "5")
    settings.EXPORT_MAX_CELLS = 121
    with pytest.raises(CommandError, match="122 values, above the limit of 121"):
        call_command("export_csv", *args)
