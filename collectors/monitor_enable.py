"""How to keep INNODB_METRICS counters on after a restart: the option file's innodb_monitor_enable list.

It is one list, and a second innodb_monitor_enable line in the option file replaces an earlier one: pasted
under an existing line, ours would turn off at the next restart what that line enables. Every hint that
gives the line says to add its entries to the existing line instead. The server cannot tell which of its
counters are on by default and which that line enables, so the hint does not list them.
"""

from collections.abc import Sequence

# The purge counters every page draws (purge_del_mark_records, purge_upd_exist_or_extern_records, purge_invoked,
# purge_undo_log_pages, purge_dml_delay_usec) and the undo slots the collector reads beside them, by name: 'purge%'
# turns on every purge_* counter whatever module a version files it under (on MariaDB 10.11 'module_purge' turns on
# the same seven, and neither turns on trx_undo_*, which are in module_trx). One list for Test connection, the
# purge page and the pressure page.
PURGE_ENTRIES = ("purge%", "trx_undo%")
# The purge page's counters by name, its rates and its DML delay line: what Test connection counts as off.
PURGE_RATES = ("purge_del_mark_records", "purge_upd_exist_or_extern_records", "purge_undo_log_pages", "purge_invoked")
PURGE_DELAY = "purge_dml_delay_usec"
PURGE_DRAWN = (*PURGE_RATES, PURGE_DELAY)


def statement(entry: str) -> str:
    """The statement that turns an entry's counters on now (a counter, a pattern with %, or module_<name>)."""
    return f"SET GLOBAL innodb_monitor_enable = '{entry}'"


def option_line(entries: Sequence[str]) -> str:
    """The line for an option file that has none yet (innodb_monitor_enable takes a comma-separated list)."""
    return f"innodb_monitor_enable={','.join(entries)}" if entries else ""


def config_hint(entries: Sequence[str]) -> str:
    """What to do in the server configuration, as a sentence for Test connection and the sources' notes."""
    listed = ",".join(entries)
    return (f"add {option_line(entries)} to the server configuration, or where it has an innodb_monitor_enable "
            f"line already, add ,{listed} to the end of its list (inside its quotes, before any # comment): a second "
            "line replaces the first")


def option_group(flavor: str) -> str:
    """The option file group the server reads: MariaDB's own [mariadb], MySQL's [mysqld]."""
    return "[mariadb]" if flavor == "mariadb" else "[mysqld]"


def pfs_on_fix(flavor: str) -> str:
    """How to turn performance_schema on: it is read only at startup, from the option file."""
    return f"set performance_schema=ON under {option_group(flavor)} in the server's option file and restart it"
