"""A node_exporter URL at a cloud metadata service is refused as a webhook's is (servers.address_rules): on the
server page, in the admin, from `addserver` and from a run file; and at every fetch, for a URL stored before.

Before, each saved http://169.254.169.254/latest/meta-data/ and every poll then asked the instance's metadata
service (blind SSRF: its answer went no further than the source's error, but the request was made)."""

import gzip
import json
from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command

from collectors.http_fetch import FetchError, HttpPool
from dashboards.reports.run_file import RunFileError, export, import_file
from servers.models import Run, Server
from testing.dashboards import TEN_MINUTES, ten_minutes
from testing.fuzz_targets import server_form

pytestmark = pytest.mark.django_db
LINK_LOCAL = "169.254.169.254 is link-local (where cloud metadata services answer)"
REFUSED = [
    ("http://169.254.169.254/latest/meta-data/", LINK_LOCAL),
    ("http://[::ffff:169.254.169.254]:80/latest/meta-data/", LINK_LOCAL),  # the same, IPv4-mapped
    ("http://metadata.google.internal/computeMetadata/v1/", "metadata.google.internal is a cloud metadata service"),
    ("http://100.100.100.200/latest/meta-data/", "100.100.100.200 is a cloud metadata service"),
    ("http://0.0.0.0:9100/metrics", "0.0.0.0 is an unspecified address"),
]


def saved_anyway(url: str) -> dict:
    return {**server_form("agent"), "node_exporter_url": url, "action": "save", "save_anyway": "on"}


@pytest.mark.parametrize(("url", "why"), REFUSED)
def test_the_server_page_refuses_a_metadata_url_even_saved_anyway(admin_client, url, why):
    answer = admin_client.post("/servers/add/", saved_anyway(url))
    assert answer.status_code == 200
    assert f"node_exporter URL refused: {why}" in answer.context["form"].errors["node_exporter_url"][0]
    assert not Server.objects.exists()


def test_the_admin_refuses_a_metadata_url(admin_client):
    answer = admin_client.post("/admin/servers/server/add/", {
        **saved_anyway(REFUSED[0][0]), "_save": "Save"})
    assert answer.status_code == 200 and not Server.objects.exists()
    assert LINK_LOCAL in answer.content.decode()


def test_addserver_refuses_a_metadata_url(monkeypatch):
    monkeypatch.setenv("PW", "pw")
    with pytest.raises(CommandError, match="169.254.169.254 is link-local"):
        call_command("addserver", "agent", "--host", "127.0.0.1", "--user", "steady", "--password-env", "PW",
                     "--node-exporter", REFUSED[0][0])
    assert not Server.objects.exists()


def test_a_run_file_naming_a_metadata_url_stores_nothing():
    server = ten_minutes("lab-db")
    Run.objects.create(server=server, name="r", started_at=TEN_MINUTES[0] + timedelta(seconds=60),
                       ended_at=TEN_MINUTES[1] - timedelta(seconds=60))
    document = json.loads(gzip.decompress(export(list(Run.objects.all()))))
    document["servers"][0]["server"]["node_exporter_url"] = REFUSED[0][0]
    with pytest.raises(RunFileError, match="169.254.169.254 is link-local"):
        import_file(gzip.compress(json.dumps(document).encode()), rename="elsewhere")
    assert not Server.objects.filter(name="elsewhere").exists()


def test_the_server_page_still_saves_a_private_or_loopback_agent(admin_client):
    answer = admin_client.post("/servers/add/", saved_anyway("http://127.0.0.1:1/metrics"))
    assert answer.status_code == 302
    assert Server.objects.get().node_exporter_url == "http://127.0.0.1:1/metrics"


@pytest.mark.parametrize(("url", "why"), REFUSED)
def test_a_stored_metadata_url_is_refused_at_fetch_without_a_connection(url, why):
    pool = HttpPool()
    with pytest.raises(FetchError) as refused:
        pool.fetch(1, url)
    assert str(refused.value) == f"node_exporter URL refused: {why}"
