"""API tokens: make one (shown once), see and revoke yours."""

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from dashboards.models import ApiToken
from dashboards.url_ids import parse_id

NAME = ApiToken._meta.get_field("name")


class TokenForm(forms.Form):
    # The model's checks: issue() creates the row without them.
    name = forms.CharField(max_length=NAME.max_length, validators=NAME.validators,
                           help_text="what will use it, e.g. “sysbench runner on lab3”")


def tokens(request: HttpRequest) -> HttpResponse:
    form, raw = TokenForm(), None
    if request.method == "POST" and "revoke" in request.POST:
        return revoke(request, request.POST["revoke"])
    if request.method == "POST":
        form = TokenForm(request.POST)
        if form.is_valid():
            _, raw = ApiToken.issue(request.user, form.cleaned_data["name"])
            form = TokenForm()
    return page(request, form, raw)


def page(request: HttpRequest, form: TokenForm, raw: str | None, status: int = 200) -> HttpResponse:
    return render(request, "dashboards/tokens.html", {
        "form": form, "raw": raw, "tokens": ApiToken.objects.filter(user=request.user),
        "base": request.build_absolute_uri("/").rstrip("/"),
    }, status=status)


def revoke(request: HttpRequest, raw_id: str) -> HttpResponse:
    """Revoke one of the user's own tokens; an id that is no number is said, with a 400."""
    token_id = parse_id(raw_id)
    if token_id is None:
        messages.error(request, f"revoke={ascii(raw_id)[:40]} is not a token id: use a Revoke button below.")
        return page(request, TokenForm(), None, status=400)
    deleted, _ = ApiToken.objects.filter(user=request.user, pk=token_id).delete()
    if deleted:
        messages.success(request, "Token revoked.")
    else:
        messages.error(request, f"You have no token {token_id}: nothing was revoked.")
    return redirect("dashboards:tokens")
