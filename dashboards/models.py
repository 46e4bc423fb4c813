"""Models of the dashboards app: API tokens for scripts that mark runs and annotations."""

import hashlib
import secrets

from django.conf import settings
from django.db import models
from django.utils import timezone

from servers.names import Printable

TOKEN_PREFIX = "sst_"


def digest(raw: str) -> str:
    # Tokens are 240 random bits: a plain SHA-256 is enough, no slow KDF needed.
    return hashlib.sha256(raw.encode()).hexdigest()


class ApiTokenQuerySet(models.QuerySet):
    def authenticate(self, raw: str) -> "ApiToken | None":
        """The token a raw value belongs to (stamping its last use), or None."""
        if not raw.startswith(TOKEN_PREFIX):
            return None
        token = self.filter(digest=digest(raw), user__is_active=True).select_related("user").first()
        if token:
            self.filter(pk=token.pk).update(last_used_at=timezone.now())
        return token


class ApiToken(models.Model):
    """A secret a script sends as `Authorization: Bearer <token>`; only its hash is kept."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=100, validators=[Printable("The name")],
                            help_text="what uses it, e.g. 'sysbench runner on lab3'")
    digest = models.CharField(max_length=64, unique=True, editable=False)
    hint = models.CharField(max_length=12, editable=False)  # the first characters, to tell tokens apart
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True, editable=False)

    objects = ApiTokenQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.name} ({self.hint}…)"

    @classmethod
    def issue(cls, user, name: str) -> tuple["ApiToken", str]:
        """Create a token; the raw value is returned once and never stored."""
        raw = TOKEN_PREFIX + secrets.token_urlsafe(30)
        token = cls.objects.create(user=user, name=name, digest=digest(raw), hint=raw[:10])
        return token, raw
