"""plotly.min.js goes out compressed and cached for long, its version in the link."""

import gzip

import plotly
import pytest
from django.core.management import call_command
from django.test import Client, override_settings

from monitor.static_headers import add_headers


def test_plotly_is_cached_for_a_year_and_other_files_are_not():
    headers = {}
    add_headers(headers, "/x/plotly.min.js", "/static/vendor/plotly/plotly.min.js")
    assert headers["Cache-Control"] == "public, max-age=31536000, immutable"
    other = {}
    add_headers(other, "/x/charts.js", "/static/js/charts.js")
    assert other == {}


@pytest.mark.django_db
def test_the_pages_link_plotly_with_its_version(client, admin_user):
    client.force_login(admin_user)
    assert f"plotly.min.js?v={plotly.__version__}" in client.get("/explore/").content.decode()


@pytest.mark.django_db
def test_after_collectstatic_plotly_is_served_gzipped(tmp_path):
    with override_settings(STATIC_ROOT=tmp_path, DEBUG=False):
        call_command("collectstatic", interactive=False, verbosity=0)  # as `manage.py up` does
        response = Client().get(f"/static/vendor/plotly/plotly.min.js?v={plotly.__version__}",
                                HTTP_ACCEPT_ENCODING="gzip")
        body = b"".join(response.streaming_content)
    plain = (tmp_path / "vendor/plotly/plotly.min.js").read_bytes()
    assert response["Content-Encoding"] == "gzip" and gzip.decompress(body) == plain
    assert len(body) < len(plain) / 3 and "max-age=31536000" in response["Cache-Control"]
