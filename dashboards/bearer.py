"""API tokens as a way to log in, for the views that accept them (marked by accepts_token)."""

from django.http import HttpRequest

from dashboards.models import ApiToken


def accepts_token(view):
    view.accepts_token = True
    return view


class BearerTokenMiddleware:
    """`Authorization: Bearer <token>` makes the token's owner the request's user, on token views only.

    It runs before monitor.roles.RoleMiddleware, so a token acts with its owner's role.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest):
        return self.get_response(request)

    def process_view(self, request: HttpRequest, view_func, args, kwargs) -> None:
        request.api_token = None
        scheme, _, raw = request.headers.get("Authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not getattr(view_func, "accepts_token", False):
            return
        # The token decides, even alongside a session (a browser-driven script sends both).
        token = ApiToken.objects.authenticate(raw.strip())
        if token:
            request.user, request.api_token = token.user, token
