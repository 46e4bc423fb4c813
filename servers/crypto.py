"""Encryption at rest for monitored-server passwords (Fernet, keys from settings).

CREDENTIAL_KEY may list several keys separated by commas: the first encrypts,
each of them decrypts. To rotate, put a new key first, run
`manage.py rotate_credentials` (re-encrypts every password with it), then drop
the old key (docs/security.md).
"""

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured


def _fernet() -> MultiFernet:
    keys = [k.strip() for k in settings.CREDENTIAL_KEY.split(",") if k.strip()]
    try:
        return MultiFernet([Fernet(k.encode()) for k in keys])
    except ValueError:
        raise ImproperlyConfigured("CREDENTIAL_KEY: each key must be a Fernet key (32 url-safe base64 bytes), "
                                   "several separated by commas") from None


def encrypt(plain: str) -> str:
    return _fernet().encrypt(plain.encode()).decode() if plain else ""


def decrypt(token: str) -> str:
    return _fernet().decrypt(token.encode()).decode() if token else ""


def rotate(token: str) -> str:
    """The same secret encrypted with the first key (InvalidToken if no key decrypts it)."""
    return _fernet().rotate(token.encode()).decode() if token else ""


__all__ = ["InvalidToken", "decrypt", "encrypt", "rotate"]
