"""Statements whose parameters go to PostgreSQL in binary, on Django's connection.

Django's psycopg cursor binds on the client: every list parameter is quoted into an
array literal element by element in Python, which was most of the cost of the worker's
batch upserts (one array per column) and the catalog's name arrays. A plain psycopg
cursor on the same connection (same transaction) binds on the server instead: with
`%b` placeholders each array goes as PostgreSQL's binary array, no quoting at all.
"""

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import psycopg
from django.db import connection


@contextmanager
def binary_cursor() -> Iterator[psycopg.Cursor]:
    """A server-binding cursor on Django's connection; its errors are Django's (OperationalError...)."""
    connection.ensure_connection()
    with connection.wrap_database_errors, psycopg.Cursor(connection.connection) as cur:
        yield cur


def fetch_all(sql: str, params: Sequence) -> list[tuple]:
    """Rows of one statement with `%b` parameters."""
    with binary_cursor() as cur:
        cur.execute(sql, params)
        return cur.fetchall() if cur.description else []
