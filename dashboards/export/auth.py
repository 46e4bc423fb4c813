"""Who may download a CSV: a logged-in user, or a script with an API token (docs/api.md)."""

from functools import wraps

from django.contrib.auth.decorators import login_not_required
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse

from dashboards.models import ApiToken


def session_or_token(view):
    """Like the login middleware, but `Authorization: Bearer <token>` works too (curl, cron jobs)."""

    @login_not_required
    @wraps(view)
    def wrapper(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if request.user.is_authenticated:
            return view(request, *args, **kwargs)
        scheme, _, raw = request.headers.get("Authorization", "").partition(" ")
        if scheme.lower() != "bearer":
            return redirect_to_login(request.get_full_path())
        if ApiToken.objects.authenticate(raw.strip()) is None:
            return HttpResponse("CSV export: invalid API token: make one on /tokens/ and send it as "
                                "'Authorization: Bearer <token>'\n", status=401, content_type="text/plain")
        return view(request, *args, **kwargs)

    return wrapper
