"""The commands README, docs/ and the pages give run with the project's Python: a new user's `python` has no Django."""

import re

from django.conf import settings

# `python` with manage.py or -m, not the venv's; a container's `python` (docker compose run ... web) is its own.
BARE = re.compile(r"(?<!\.venv/bin/)(?<!web )\bpython (manage\.py|-m\b)")
# The one sentence that says what `python` means once the venv is activated.
ACTIVATED = "`python manage.py <command>` is the same"


def pages() -> list:
    base = settings.BASE_DIR
    return [base / "README.md", *sorted((base / "docs").glob("*.md")), *sorted((base / "templates").rglob("*.html"))]


def test_every_command_line_names_the_venvs_python():
    bare = [f"{page.name}:{n}: {line.strip()}" for page in pages()
            for n, line in enumerate(page.read_text().splitlines(), 1)
            if BARE.search(line.replace(ACTIVATED, ""))]
    assert bare == []
