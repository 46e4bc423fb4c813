"""A command's FILE argument read whole (load, import_run): a file it cannot read stops it, saying why."""

from pathlib import Path

from django.core.management.base import CommandError


def read_file_arg(path: Path) -> bytes:
    """The file's bytes, or a CommandError naming it with what the system said (no traceback)."""
    try:
        return path.read_bytes()
    except OSError as exc:
        raise CommandError(f"{path}: cannot read it ({exc.strerror})") from None
