"""Where the driver connects: a registered server, possibly with a user that may write."""

import os
from dataclasses import dataclass

import pymysql

from collectors.connection import open_connection
from collectors.pinning import NO_PIN, Pin

READ_TIMEOUT = 30  # seconds: a write may wait on a row lock, a stopped server must still fail fast


@dataclass(frozen=True)
class Target:
    name: str  # the monitor.Server name, for messages
    user: str
    password: str
    host: str = ""
    port: int = 3306
    socket: str = ""
    pin: Pin = NO_PIN  # the stored password goes only to what the server pinned (collectors.pinning)
    trust_new: bool = False  # a password given on the command line: the user chose where it goes

    @property
    def where(self) -> str:
        return f"server {self.name} ({self.socket or f'{self.host}:{self.port}'})"

    def connect(self) -> pymysql.Connection:
        """A plain autocommit session: no monitoring guards, the workload is meant to be seen."""
        return open_connection(host=self.host, port=self.port, socket=self.socket, user=self.user,
                               password=self.password, read_timeout=READ_TIMEOUT, guards=False, pin=self.pin,
                               trust_new=self.trust_new)


def target_for(server, user: str = "", password_env: str = "") -> Target:
    """The Target of a servers.models.Server, with the write user given on the command line if any."""
    password = server.password
    if user:
        password = os.environ.get(password_env, "") if password_env else ""
    return Target(name=server.name, user=user or server.user, password=password,
                  host=server.host, port=server.port, socket=server.socket, pin=Pin.of(server), trust_new=bool(user))
