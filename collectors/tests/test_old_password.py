"""A server that switches to mysql_old_password: a clear connection error, never a traceback."""

import logging

import pymysql
import pytest

from collectors.batch import poll_server
from collectors.connection import ConnectError, open_connection
from collectors.models import ServerHealth
from collectors.probe import check_connection
from testing.fake_mysql import fake_mysql_server

pytestmark = pytest.mark.django_db

EXPECTED = "the server asked for the pre-4.1 authentication plugin 'mysql_old_password': not supported"


@pytest.fixture
def old():
    with fake_mysql_server(plugin="mysql_old_password") as server:
        yield server


def test_plain_pymysql_fails_with_an_attribute_error(old):
    """The break: PyMySQL names a scrambler it does not have."""
    with pytest.raises(AttributeError, match="scramble_old_password"):
        pymysql.connect(host="127.0.0.1", port=old.port, user="steady", password="pw", connect_timeout=3)


def test_our_connection_says_what_the_server_asked_for(old):
    with pytest.raises(ConnectError, match=EXPECTED):
        open_connection(host="127.0.0.1", port=old.port, user="steady", password="pw")


def test_test_connection_reports_it_as_a_connection_error(old):
    result = check_connection(host="127.0.0.1", port=old.port, user="steady", password="pw")
    assert not result.connected and EXPECTED in result.error
    assert "mysql_native_password" in result.error  # what to do about it


def test_a_poll_records_it_without_a_traceback(make_server, old, caplog):
    server = make_server(port=old.port)
    with caplog.at_level(logging.INFO):
        result = poll_server(server.id)
    assert not result.ok
    assert EXPECTED in ServerHealth.objects.get(server=server).last_error
    assert not [r for r in caplog.records if r.exc_info], [r.getMessage() for r in caplog.records if r.exc_info]
