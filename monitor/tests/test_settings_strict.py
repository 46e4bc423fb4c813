"""Settings are read from the environment in one place (monitor/settings.py), and strictly."""

import ast
import subprocess
import sys

import pytest
from django.core.exceptions import ImproperlyConfigured

from monitor.env import BASE_DIR, envbool, envchoice, envint, envlist

# Where reading the environment by name is the point: the settings themselves, the
# test settings that start private servers, and the entry points naming the settings module.
READERS = {"monitor/settings.py", "monitor/env.py", "monitor/settings_test.py"}
PROCESS_NAMES = {"DJANGO_SETTINGS_MODULE", "DJANGO_ALLOW_ASYNC_UNSAFE"}


@pytest.mark.parametrize("value", ["tru", "Flase", "2", "enabled"])
def test_a_boolean_typo_is_an_error_naming_the_variable(monkeypatch, value):
    monkeypatch.setenv("SOME_FLAG", value)
    with pytest.raises(ImproperlyConfigured, match=f"SOME_FLAG='{value}'.*boolean"):
        envbool("SOME_FLAG")


@pytest.mark.parametrize("value, expected", [("1", True), ("Yes", True), ("on", True), ("false", False),
                                             ("OFF", False), ("0", False), ("", False)])
def test_booleans_read_as_written(monkeypatch, value, expected):
    monkeypatch.setenv("SOME_FLAG", value)
    assert envbool("SOME_FLAG") is expected


def test_numbers_lists_and_choices_are_checked(monkeypatch):
    monkeypatch.setenv("N", "ten")
    with pytest.raises(ImproperlyConfigured, match="N='ten'.*whole number"):
        envint("N", 3)
    monkeypatch.setenv("N", "70000")
    with pytest.raises(ImproperlyConfigured, match="from 1 to 65535"):
        envint("N", 3, lo=1, hi=65535)
    monkeypatch.setenv("N", " 42 ")
    assert envint("N", 3, lo=1) == 42
    monkeypatch.setenv("L", "a, b,,c")
    assert envlist("L") == ["a", "b", "c"]
    monkeypatch.setenv("C", "debug")
    assert envchoice("C", "INFO", ("DEBUG", "INFO")) == "DEBUG"
    monkeypatch.setenv("C", "loud")
    with pytest.raises(ImproperlyConfigured, match="one of DEBUG, INFO"):
        envchoice("C", "INFO", ("DEBUG", "INFO"))


def test_a_bad_setting_stops_the_start_with_its_name(tmp_path):
    env = {"PATH": "/usr/bin:/bin", "DEBUG": "tru", "STEADYSTATE_VAR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", "import monitor.settings"], cwd=BASE_DIR, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    assert "Setting DEBUG='tru' is not valid: expected a boolean" in done.stderr


def env_reads(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, name) of every os.getenv("X") / os.environ["X"] / os.environ.get("X") in a module."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and ast.unparse(node.func) in ("os.getenv", "os.environ.get"):
            arg = node.args[0] if node.args else None
        elif isinstance(node, ast.Subscript) and ast.unparse(node.value) == "os.environ" \
                and isinstance(node.ctx, ast.Load):
            arg = node.slice
        else:
            continue
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and arg.value not in PROCESS_NAMES:
            found.append((node.lineno, arg.value))
    return found


def test_no_module_but_the_settings_reads_a_setting_from_the_environment():
    offenders = []
    for path in BASE_DIR.rglob("*.py"):
        rel = path.relative_to(BASE_DIR).as_posix()
        if rel.startswith((".venv/", "bench/")) or "/tests/" in rel or rel in READERS:
            continue
        offenders += [f"{rel}:{line} reads {name}" for line, name in env_reads(ast.parse(path.read_text()))]
    assert offenders == []
