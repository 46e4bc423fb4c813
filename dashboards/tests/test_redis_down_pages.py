"""Redis down (a crash, a container stopped): the pages read PostgreSQL and still answer.

Seen live with the embedded Redis stopped (SIGSTOP): every server page answered 500, since the chart marks read the
gaps the store has not saved to PostgreSQL yet from Redis; the fleet page and the CSVs answered.
"""

import pytest

from servers.models import Run
from store import redis_client
from testing import dashboards as data

pytestmark = pytest.mark.django_db
PAGES = ("stability", "purge", "waits", "pressure", "replication", "host", "statements")


@pytest.fixture
def redis_down(settings, tmp_path):
    settings.REDIS_URL = f"unix://{tmp_path}/no-redis.sock"  # nothing listens there
    redis_client.shared.cache_clear()  # the process's client, made from the setting once
    yield
    redis_client.shared.cache_clear()


def test_every_server_page_answers_with_redis_down(admin_client, redis_down):
    server = data.ten_minutes("redis-down")
    for page in PAGES:
        response = admin_client.get(f"/servers/{server.pk}/{page}/")
        assert response.status_code == 200, page
    run = Run.objects.create(server=server, name="r", started_at=data.TEN_MINUTES[0], ended_at=data.TEN_MINUTES[1])
    for url in ("/", "/servers/", "/runs/", f"/explore/?server={server.pk}", "/alerts/", f"/runs/{run.pk}/report/",
                f"/compare/?runs={run.pk}"):
        assert admin_client.get(url).status_code == 200, url
