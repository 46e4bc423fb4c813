"""How to keep INNODB_METRICS counters on after a restart: the option file's innodb_monitor_enable list.

It is one list, and a second innodb_monitor_enable line in the option file replaces an earlier one: pasted
under an existing line, ours would turn off at the next restart what that line enables. Every hint that
gives the line says to add its entries to the existing line instead. The server cannot tell which of its
counters are on by default and which that line enables, so the hint does not list them.
"""

from collections.abc import Sequence


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
