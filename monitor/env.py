"""Settings helpers: every setting comes from the environment, read only by monitor/settings.py.

Each helper rejects a value it cannot read with ImproperlyConfigured naming the
variable, so a typo stops the start instead of silently becoming a default.
"""

import os
from collections.abc import Callable
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent

TRUE = ("1", "true", "yes", "on")
FALSE = ("0", "false", "no", "off")


def bad(name: str, value: str, expected: str) -> ImproperlyConfigured:
    return ImproperlyConfigured(f"Setting {name}={value!r} is not valid: expected {expected}.")


def envstr(name: str, default: str = "") -> str:
    return os.getenv(name, default)


def envbool(name: str, default: bool = False) -> bool:
    value = os.getenv(name)
    if value is None or value.strip() == "":
        return default
    word = value.strip().lower()
    if word not in TRUE + FALSE:
        raise bad(name, value, f"a boolean ({'/'.join(TRUE)} or {'/'.join(FALSE)})")
    return word in TRUE


def envint(name: str, default: int, lo: int | None = None, hi: int | None = None) -> int:
    value = os.getenv(name)
    if value is None or value.strip() == "":
        return default
    try:
        number = int(value.strip())
    except ValueError:
        raise bad(name, value, "a whole number") from None
    if (lo is not None and number < lo) or (hi is not None and number > hi):
        raise bad(name, value, f"a whole number from {lo if lo is not None else '-inf'} to "
                               f"{hi if hi is not None else 'inf'}")
    return number


def envlist(name: str, default: str = "", check: Callable[[str], object] | None = None) -> list[str]:
    """A comma-separated list; check(item) raising ValueError (or ValidationError) rejects an item."""
    value = os.getenv(name, default)
    items = [item.strip() for item in value.split(",") if item.strip()]
    for item in items:
        if check is None:
            break
        try:
            check(item)
        except Exception as exc:  # ValueError or django's ValidationError: both say what is wrong
            message = "; ".join(getattr(exc, "messages", [str(exc)]))
            raise bad(name, value, f"a comma-separated list ({item!r}: {message})") from None
    return items


def envchoice(name: str, default: str, choices: tuple[str, ...]) -> str:
    """One of choices, matched without regard to case and returned as spelled in choices."""
    value = os.getenv(name, default).strip()
    for choice in choices:
        if value.lower() == choice.lower():
            return choice
    raise bad(name, value, "one of " + ", ".join(choices))


def envsecret(name: str, default: str = "") -> str:
    """Read NAME, or the file named by NAME_FILE (docker secrets)."""
    path = os.getenv(f"{name}_FILE")
    if path:
        try:
            return Path(path).read_text().strip()
        except OSError as exc:
            raise bad(f"{name}_FILE", path, f"a readable file ({exc.strerror})") from None
    return os.getenv(name, default)


def var_dir() -> Path:
    """Where the embedded servers and generated secrets live."""
    path = Path(os.getenv("STEADYSTATE_VAR", BASE_DIR / "var")).resolve()
    path.mkdir(parents=True, exist_ok=True)
    return path


def private_file(path: Path, make) -> str:
    """Return the content of a 0600 file, creating it with make() once."""
    if not path.exists():
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(make())
    return path.read_text().strip()
