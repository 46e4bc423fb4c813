"""Pausing a running stress load from another process: a flag file the driver watches (the demo's load).

The demo's load runs as a child of `manage.py up`; `manage.py demo pause|resume` and the demo
server's page set or clear the flag, and the driver stops starting transactions (and closes its
held read view) within half a second (workload.driver.PAUSE_POLL_S). A file under var/ is what
every process of one installation shares, even with Redis down.
"""

from pathlib import Path

from django.conf import settings


def demo_flag() -> Path:
    """The demo load's flag: present while it is paused."""
    return Path(settings.VAR_DIR) / "demo-mariadb" / "load.paused"


def set_paused(flag: Path, paused: bool) -> None:
    if paused:
        flag.parent.mkdir(parents=True, exist_ok=True)
        flag.touch()
    else:
        flag.unlink(missing_ok=True)


def is_paused(flag: Path) -> bool:
    return flag.exists()
