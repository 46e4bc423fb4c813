"""The user name django-axes counts failed logins under (AXES_USERNAME_CALLABLE).

The login form lets a name of any length reach authenticate() (its max_length is set after the
field is built, so no validator checks it), and axes stores it in a 255-character column: a longer
one failed the INSERT with a 500. No user name is longer than auth's 150 characters, so that cut
loses no account.
"""

from django.http import HttpRequest

NAME_LENGTH = 150  # django.contrib.auth's User.username


def username(request: HttpRequest, credentials: dict | None = None) -> str | None:
    source = credentials if credentials else getattr(request, "data", request.POST)
    name = source.get("username")
    return None if name is None else str(name).replace("\x00", "")[:NAME_LENGTH]
