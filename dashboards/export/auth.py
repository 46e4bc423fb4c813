"""Who may download a CSV: a logged-in user, or a script with an API token (docs/api.md)."""

from functools import wraps

from django.contrib.auth.decorators import login_not_required
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse

from dashboards.bearer import accepts_token
from dashboards.export import slots


def session_or_token(view):
    """Like the login middleware, but `Authorization: Bearer <token>` works too (curl, cron jobs)."""

    @accepts_token  # dashboards.bearer logs the token's owner in; monitor.roles checks the role
    @login_not_required
    @wraps(view)
    def wrapper(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if request.user.is_authenticated:
            return bounded(view, request, *args, **kwargs)
        scheme, _, _ = request.headers.get("Authorization", "").partition(" ")
        if scheme.lower() != "bearer":
            return redirect_to_login(request.get_full_path())
        return HttpResponse("CSV export: invalid API token: make one on /tokens/ and send it as "
                            "'Authorization: Bearer <token>'\n", status=401, content_type="text/plain")

    return wrapper


def bounded(view, request: HttpRequest, *args, **kwargs) -> HttpResponse:
    """The view within the user's and the process's export slots (dashboards.export.slots); 429 beyond."""
    try:
        slot = slots.take(request.user.pk)
    except slots.Busy as busy:
        response = HttpResponse(f"CSV export: {busy}\n", status=429, content_type="text/plain; charset=utf-8")
        response["Retry-After"] = "10"
        return response
    try:
        response = view(request, *args, **kwargs)
    except BaseException:
        slots.give_back(slot)
        raise
    if response.streaming:
        response.streaming_content = slots.held_while(slot, response.streaming_content)
    else:
        slots.give_back(slot)
    return response
