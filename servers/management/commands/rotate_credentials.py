"""manage.py rotate_credentials: re-encrypt every stored password with the first CREDENTIAL_KEY."""

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from servers import crypto
from servers.models import Server


class Command(BaseCommand):
    help = ("Re-encrypt the monitored servers' passwords with the first key of CREDENTIAL_KEY "
            "(list the new key first, the old one after it; see docs/security.md).")

    def handle(self, *args, **opts) -> None:
        with transaction.atomic():
            servers = list(Server.objects.select_for_update().exclude(password_encrypted=""))
            for server in servers:
                try:
                    server.password_encrypted = crypto.rotate(server.password_encrypted)
                except crypto.InvalidToken:
                    raise CommandError(f"Server '{server.name}': no key of CREDENTIAL_KEY decrypts its password; "
                                       "nothing was changed. Keep the old key in the list.") from None
            Server.objects.bulk_update(servers, ["password_encrypted"])
        self.stdout.write(f"{len(servers)} password(s) re-encrypted with the first key: "
                          "the other keys may now be removed from CREDENTIAL_KEY.")
