"""Servers in the registry for tests: a row pointing at a host and port, its password encrypted."""

from servers.models import Server

PASSWORD = "s3cret!"  # the suite's MariaDB monitoring user (testing.mariadb) has this password


def make_server(name: str = "db1", port: int = 3306, user: str = "steady", password: str = PASSWORD,
                **fields) -> Server:
    server = Server(name=name, host="127.0.0.1", port=port, user=user, **fields)
    server.password = password
    server.save()
    return server
