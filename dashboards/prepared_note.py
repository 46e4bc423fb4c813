"""The executions MariaDB's digest table leaves out: server-side prepared statements (Com_stmt_execute)."""

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dashboards.reads import StatementsRange


def unseen_prepared(flavor: str, found: "StatementsRange") -> int | None:
    """Com_stmt_execute over the digests' span on MariaDB, which records no digest row for a binary-protocol
    execution (sysbench's default); None where none ran or the server digests them (MySQL)."""
    count = found.stmt_executions
    return int(count) if flavor == "mariadb" and count else None
