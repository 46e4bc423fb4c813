"""The five TLS modes of the mysql client, as a server's registry row names them (collectors/tls.py applies them)."""

DISABLED, PREFERRED, REQUIRED, VERIFY_CA, VERIFY_IDENTITY = (
    "disabled", "preferred", "required", "verify-ca", "verify-identity")
MODES = (DISABLED, PREFERRED, REQUIRED, VERIFY_CA, VERIFY_IDENTITY)
VERIFYING = (VERIFY_CA, VERIFY_IDENTITY)
