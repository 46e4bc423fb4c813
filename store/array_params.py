"""Integer arrays passed to PostgreSQL as array text ('{1,2,3}', cast by the statement's ::int[]).

Django's cursor quotes a list parameter element by element in Python: 0.5 ms for the ~700 metric ids
of a waits total, every statement; the joined text costs ~30 us.
"""

from collections.abc import Iterable


def int_array(values: Iterable[int]) -> str:
    return "{" + ",".join(map(str, values)) + "}"
