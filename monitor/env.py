"""Settings helpers: every setting comes from the environment."""

import os
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent


def envbool(name: str, default: str = "False") -> bool:
    return os.getenv(name, default).lower() in ("1", "true", "yes", "on")


def envint(name: str, default: int) -> int:
    return int(os.getenv(name, str(default)))


def envsecret(name: str, default: str = "") -> str:
    """Read NAME, or the file named by NAME_FILE (docker secrets)."""
    path = os.getenv(f"{name}_FILE")
    if path:
        return Path(path).read_text().strip()
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
