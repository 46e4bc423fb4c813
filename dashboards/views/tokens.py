"""API tokens: make one (shown once), see and revoke yours."""

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from dashboards.models import ApiToken


class TokenForm(forms.Form):
    name = forms.CharField(max_length=100, help_text="what will use it, e.g. “sysbench runner on lab3”")


def tokens(request: HttpRequest) -> HttpResponse:
    form, raw = TokenForm(), None
    if request.method == "POST" and "revoke" in request.POST:
        ApiToken.objects.filter(user=request.user, pk=request.POST["revoke"]).delete()
        messages.success(request, "Token revoked.")
        return redirect("dashboards:tokens")
    if request.method == "POST":
        form = TokenForm(request.POST)
        if form.is_valid():
            _, raw = ApiToken.issue(request.user, form.cleaned_data["name"])
            form = TokenForm()
    return render(request, "dashboards/tokens.html", {
        "form": form, "raw": raw, "tokens": ApiToken.objects.filter(user=request.user),
        "base": request.build_absolute_uri("/").rstrip("/"),
    })
