"""Rotating CREDENTIAL_KEY: a new key first, rotate_credentials, then the old key can go."""

import pytest
from cryptography.fernet import Fernet
from django.core.management import call_command
from django.core.management.base import CommandError

from servers.models import Server

pytestmark = pytest.mark.django_db


def test_passwords_survive_a_key_rotation(settings):
    old, new = Fernet.generate_key().decode(), Fernet.generate_key().decode()
    settings.CREDENTIAL_KEY = old
    Server.objects.create(name="a", host="h", user="u", password="pw-a")
    settings.CREDENTIAL_KEY = f"{new},{old}"
    assert Server.objects.get(name="a").password == "pw-a"  # the old key still decrypts
    call_command("rotate_credentials")
    settings.CREDENTIAL_KEY = new  # the old key dropped
    assert Server.objects.get(name="a").password == "pw-a"
    Fernet(new.encode()).decrypt(Server.objects.get(name="a").password_encrypted.encode())


def test_it_changes_nothing_when_a_password_cannot_be_read(settings):
    settings.CREDENTIAL_KEY = Fernet.generate_key().decode()
    Server.objects.create(name="a", host="h", user="u", password="pw-a")
    before = Server.objects.get(name="a").password_encrypted
    settings.CREDENTIAL_KEY = Fernet.generate_key().decode()  # the old key forgotten
    with pytest.raises(CommandError, match="no key of CREDENTIAL_KEY decrypts"):
        call_command("rotate_credentials")
    assert Server.objects.get(name="a").password_encrypted == before
