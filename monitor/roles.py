"""Who may do what: three roles as Django groups, checked in one place (RoleMiddleware).

viewers    every page and CSV export, their own API tokens
operators  viewers, plus runs, annotations and alert rules (pages and the API)
admins     operators, plus servers and their credentials, users, the Django admin

A superuser is an admin. A view's role comes from POLICY by URL name: one role
to read (GET/HEAD) and one to change (any other method). A view missing from
POLICY needs an admin, so a new page is closed until someone decides.
An API token acts with its owner's role.
"""

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import ResolverMatch

VIEWER, OPERATOR, ADMIN = "viewers", "operators", "admins"
GROUPS = (VIEWER, OPERATOR, ADMIN)
RANK = {VIEWER: 1, OPERATOR: 2, ADMIN: 3}
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
OPEN = None  # any visitor the login middleware lets through

# URL name -> (role to read, role to change).
POLICY: dict[str, tuple[str | None, str | None]] = {
    "login": (OPEN, OPEN),
    "logout": (OPEN, OPEN),
    "admin:*": (ADMIN, ADMIN),
    "servers:list": (VIEWER, ADMIN),
    "servers:add": (ADMIN, ADMIN),
    "servers:load": (ADMIN, ADMIN),  # makes a server, as adding one does
    "servers:import_run": (ADMIN, ADMIN),  # may make a server too
    "servers:edit": (ADMIN, ADMIN),
    "servers:test": (ADMIN, ADMIN),
    "servers:delete": (ADMIN, ADMIN),
    "alerts:index": (VIEWER, OPERATOR),
    "alerts:event": (VIEWER, OPERATOR),
    "alerts:rule_new": (OPERATOR, OPERATOR),
    "alerts:rule_edit": (OPERATOR, OPERATOR),
    "alerts:rule_toggle": (OPERATOR, OPERATOR),
    "alerts:rule_delete": (OPERATOR, OPERATOR),
    "alerts:test_email": (OPERATOR, OPERATOR),
    "dashboards:fleet": (VIEWER, OPERATOR),
    "dashboards:stability": (VIEWER, OPERATOR),
    "dashboards:purge": (VIEWER, OPERATOR),
    "dashboards:waits": (VIEWER, OPERATOR),
    "dashboards:host": (VIEWER, OPERATOR),
    "dashboards:demo-load": (OPERATOR, OPERATOR),  # POST: pause or resume the demo's load
    "dashboards:statements": (VIEWER, OPERATOR),
    "dashboards:statement": (VIEWER, OPERATOR),
    "dashboards:explore": (VIEWER, OPERATOR),
    "dashboards:runs": (VIEWER, OPERATOR),
    "dashboards:compare": (VIEWER, OPERATOR),
    "dashboards:pressure": (VIEWER, OPERATOR),
    "dashboards:replication": (VIEWER, OPERATOR),
    "dashboards:scalability": (VIEWER, OPERATOR),  # POST: a sweep's label
    "dashboards:tokens": (VIEWER, VIEWER),  # a token acts with its owner's role
    "dashboards:api-annotations": (OPERATOR, OPERATOR),
    "dashboards:api-runs": (OPERATOR, OPERATOR),
    "dashboards:api-run-end": (OPERATOR, OPERATOR),
    "export-csv": (VIEWER, VIEWER),
    "export-topwaits": (VIEWER, VIEWER),
    "export-compare": (VIEWER, VIEWER),
    "export-annotations": (VIEWER, VIEWER),
    "export-runs": (VIEWER, VIEWER),
    "export-fleet": (VIEWER, VIEWER),
    "export-scalability": (VIEWER, VIEWER),
    "export-holders": (VIEWER, VIEWER),
    "export-statements": (VIEWER, VIEWER),
    "export-statement": (VIEWER, VIEWER),
    "run-report": (VIEWER, OPERATOR),
    "run-export": (VIEWER, VIEWER),  # the run's file for another installation (GET only)
    "compare-report": (VIEWER, OPERATOR),
    "scalability-report": (VIEWER, OPERATOR),
}


def role_of(user) -> str | None:
    """The user's highest role, or None (a user in no group may only log out)."""
    if not user.is_authenticated or not user.is_active:
        return None
    if user.is_superuser:
        return ADMIN
    names = getattr(user, "_role_groups", None)
    if names is None:  # once per request: the user object lives as long as the request
        names = user._role_groups = set(user.groups.filter(name__in=GROUPS).values_list("name", flat=True))
    return max(names, key=lambda name: RANK[name], default=None)


def allows(user, role: str | None) -> bool:
    have = role_of(user)
    return role is None or (have is not None and RANK[have] >= RANK[role])


def required_role(match: ResolverMatch, method: str) -> str | None:
    rule = POLICY.get(match.view_name) or POLICY.get(f"{match.namespace}:*") or (ADMIN, ADMIN)
    return rule[0] if method in SAFE_METHODS else rule[1]


def refusal(request: HttpRequest, needed: str | None) -> HttpResponse:
    have = role_of(request.user)
    reason = (f"This needs the {needed} role; you are in {have}. Ask an admin if you need more."
              if have else "Your account has no role yet: ask an admin to add you to viewers, operators or admins.")
    if request.path.startswith("/api/"):
        return JsonResponse({"error": reason}, status=403)
    if "Authorization" in request.headers:  # a script downloading a CSV
        return HttpResponse(reason + "\n", status=403, content_type="text/plain")
    return render(request, "403_role.html", {"reason": reason}, status=403)


class RoleMiddleware:
    """After authentication (and the API token middleware): refuse what the user's role may not do."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_view(self, request: HttpRequest, view_func, args, kwargs) -> HttpResponse | None:
        if not request.user.is_authenticated:
            return None  # the login middleware redirects, a token view answers 401
        needed = required_role(request.resolver_match, request.method)
        return None if allows(request.user, needed) else refusal(request, needed)


def context(request: HttpRequest) -> dict:
    """Template flags, so pages offer only what the user may do."""
    user = getattr(request, "user", None)
    if user is None:
        return {}
    return {"can_operate": allows(user, OPERATOR), "can_admin": allows(user, ADMIN), "role": role_of(user)}
