"""A statement that must fail alone: its own transaction, without a BEGIN and a COMMIT where it can.

In autocommit (the worker, outside any atomic block) PostgreSQL runs a statement as a transaction of
its own, so wrapping it in atomic() only adds two round trips (BEGIN, COMMIT) and Django's bookkeeping:
each a wait on PostgreSQL, which costs the worker CPU of its own (docs/benchmarks.md, session 19). Inside
a caller's transaction it takes a savepoint, so that its failure leaves the caller's transaction usable.
"""

from contextlib import AbstractContextManager, nullcontext

from django.db import connection, transaction


def alone() -> AbstractContextManager:
    return nullcontext() if connection.get_autocommit() else transaction.atomic()
