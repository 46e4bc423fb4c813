"""Which statement digests are monitoring reads: statements that read only the server's own state.

A monitor (this one, mysqld_exporter, PMM) polls performance_schema, information_schema and SHOW
every few seconds; on a lightly loaded server its reads can top the statements ranked by time.
A digest is a monitoring read when its DIGEST_TEXT is a SHOW statement, or a SELECT (MariaDB's
SET STATEMENT ... FOR SELECT included) that reads at least one table and only tables of
SYSTEM_SCHEMAS; a table named without a schema is in the digest's SCHEMA_NAME (the default
database it ran in), and none means not known. Anything else is not: writes, a SELECT of no
table (SELECT 1, SELECT @@version: connectors' and applications' too), a table this cannot place.
The server truncates a long DIGEST_TEXT (performance_schema_max_digest_length, 1,024 by default):
the tables of its visible part decide, as they must for a monitor's long polls.

Judged from the text once per process (the text of a digest never changes once stored).
"""

import re
from functools import lru_cache

SYSTEM_SCHEMAS = frozenset({"performance_schema", "information_schema", "mysql", "sys"})
# Backquoted identifiers, comments (MySQL keeps optimizer hints in a digest), strings, words, one-char symbols.
TOKEN = re.compile(r"`(?:[^`]|``)*`|/\*.*?(?:\*/|$)|'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|[\w$@]+|\S", re.S)
NOT_A_TABLE = frozenset({"DUAL"})
CLAUSE_WORDS = frozenset({"WHERE", "GROUP", "ORDER", "HAVING", "LIMIT", "JOIN", "LEFT", "RIGHT", "INNER", "OUTER",
                          "CROSS", "NATURAL", "STRAIGHT_JOIN", "ON", "USING", "UNION", "WINDOW", "FOR", "LOCK",
                          "INTO", "PARTITION", "USE", "FORCE", "IGNORE", "EXCEPT", "INTERSECT"})
WRITES_FILES = frozenset({"OUTFILE", "DUMPFILE"})
CACHED = 65536  # distinct (schema, text) pairs judged per process


@lru_cache(maxsize=CACHED)
def is_monitoring_read(schema: str, text: str) -> bool:
    """Whether the digest (its SCHEMA_NAME and DIGEST_TEXT) reads only the server's own state."""
    if not maybe(schema, text):
        return False
    words = statement_of(tokens(text))
    if not words:
        return False
    first = words[0].upper()
    if first == "SHOW":
        return True
    if first not in ("SELECT", "WITH") or any(w.upper() in WRITES_FILES for w in words):
        return False
    found = schemas_read(words, schema.lower())
    return bool(found) and found <= SYSTEM_SCHEMAS


def maybe(schema: str, text: str) -> bool:
    """A cheap first look: only a SHOW or a text naming a system schema (or run in one) can be a monitoring read."""
    lowered = text.lower()
    return (lowered.lstrip().startswith(("show", "set statement")) or schema.lower() in SYSTEM_SCHEMAS
            or any(name in lowered for name in SYSTEM_SCHEMAS))


def tokens(text: str) -> list[str]:
    return [t for t in TOKEN.findall(text) if not t.startswith("/*")]


def statement_of(words: list[str]) -> list[str]:
    """The statement proper: after MariaDB's SET STATEMENT ... FOR, and without the opening parentheses."""
    if len(words) > 1 and words[0].upper() == "SET" and words[1].upper() == "STATEMENT":
        cut = next((i for i, w in enumerate(words) if w.upper() == "FOR"), len(words) - 1)
        words = words[cut + 1:]
    at = 0
    while at < len(words) and words[at] == "(":
        at += 1
    return words[at:]


def name(word: str) -> str | None:
    """An identifier's name, lowercased; None for a symbol, a string or a placeholder."""
    if word.startswith("`"):
        return word[1:-1].replace("``", "`").lower()
    if word[0].isalpha() or word[0] in "_$":
        return word.lower()
    return None


def schemas_read(words: list[str], default: str) -> set[str | None]:
    """The schema of every table after a FROM or a JOIN ('' where the digest ran in no database, None where
    the reference is not a plain table). A subquery's tables come from its own FROM."""
    found: set[str | None] = set()
    for at, word in enumerate(words):
        if word.upper() in ("FROM", "JOIN"):
            table_list(words, at + 1, default or None, found)
    return found


def table_list(words: list[str], at: int, default: str | None, found: set[str | None]) -> None:
    """The table references from words[at] on, separated by commas, into found."""
    while at < len(words):
        at = table_reference(words, at, default, found)
        if at < len(words) and words[at] == ",":
            at += 1
            continue
        return


def table_reference(words: list[str], at: int, default: str | None, found: set[str | None]) -> int:
    """One reference (a table, or a derived table skipped whole) and its alias; the position after them."""
    if words[at] == "(":
        at = closing(words, at) + 1
    elif words[at].upper() in NOT_A_TABLE:
        return at + 1
    else:
        first = name(words[at])
        if first is None or (at + 1 < len(words) and words[at + 1] == "("):
            found.add(None)  # a placeholder (SUBSTRING(x FROM ?)), a table function: not a known table
            return at + 1
        if at + 2 < len(words) and words[at + 1] == ".":
            found.add(first)
            at += 3
        elif at + 1 < len(words) and words[at + 1] == ".":
            found.add(first)  # the text ends after the schema (truncated)
            return len(words)
        else:
            found.add(default)
            at += 1
    if at < len(words) and words[at].upper() == "AS":
        at += 1
    if at < len(words) and name(words[at]) is not None and words[at].upper() not in CLAUSE_WORDS:
        at += 1  # the alias
    return at


def closing(words: list[str], at: int) -> int:
    """The position of the parenthesis closing words[at] (the end where the text was truncated)."""
    depth = 0
    for k in range(at, len(words)):
        depth += {"(": 1, ")": -1}.get(words[k], 0)
        if depth == 0:
            return k
    return len(words)
