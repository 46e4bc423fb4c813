"""The Servers page's "Load a collection file": the file's deltas stored, bad files refused with a 400."""

from datetime import UTC, datetime

from django.contrib.auth.models import Group
from django.contrib.messages import get_messages
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from monitor.roles import OPERATOR
from servers.models import Server
from store import query
from testing.collect import hand_made, reencode

SPAN = (datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 2, 1, tzinfo=UTC))


def upload(client, data: bytes, name: str = "lab-db"):
    return client.post("/servers/load/", {"name": name, "file": SimpleUploadedFile("lab.ssc", data)})


def test_an_admin_loads_a_file_and_sees_its_deltas(client, admin_user):
    client.force_login(admin_user)
    assert b"Load a collection file" in client.get("/servers/").content
    response = upload(client, reencode(hand_made([100, 160, 160, 400])))
    server = Server.objects.get(name="lab-db")
    assert response.status_code == 302 and response.url == f"/servers/{server.id}/stability/"
    assert not server.enabled and server.address == "lab-db:3306"
    stored = query.counter_samples(server.id, ["Com_commit"], *SPAN)["Com_commit"]
    assert stored.deltas == [60, 0, 240] and stored.seconds == [10.0, 10.0, 10.0]
    assert any("older than the full-resolution retention" in str(m) for m in get_messages(response.wsgi_request))
    page = client.get(response.url, {"from": "2026-01-05T09:00:00Z", "to": "2026-01-05T11:00:00Z"})
    assert page.status_code == 200 and b"lab-db" in page.content


def test_a_bad_file_is_refused_with_its_reason_and_nothing_stored(client, admin_user):
    client.force_login(admin_user)
    data = reencode(hand_made([100, 160, 400]))
    response = upload(client, data[:-5])
    assert response.status_code == 400 and b"is truncated" in response.content
    assert not Server.objects.exists()
    response = upload(client, data, name=" ")
    assert response.status_code == 400 and b"name: give the server a name" in response.content


def test_only_admins_load(client, django_user_model):
    operator = django_user_model.objects.create_user("op", password="pw")
    operator.groups.add(Group.objects.get(name=OPERATOR))
    client = Client()
    client.force_login(operator)
    assert upload(client, reencode(hand_made([1, 2]))).status_code == 403
    assert not Server.objects.exists()


def test_a_mark_outside_the_years_a_time_may_take_is_refused_and_nothing_stored(client, admin_user):
    """The collector's local API took started_at 9999-12-31: the load answered 500 (the CHECK constraint)."""
    client.force_login(admin_user)
    records = hand_made([100, 160, 400])
    records.insert(2, {"type": "mark", "at": 253402300799.0, "run_start": "typo"})  # 9999-12-31T23:59:59Z
    response = upload(client, reencode(records))
    assert response.status_code == 400
    assert ("record 2 (mark) is damaged: its time 9999-12-31T23:59:59+00:00 is not between 1970-01-01 and "
            "2100-01-01 (UTC). Nothing was stored.") in response.content.decode()
    assert not Server.objects.exists()
