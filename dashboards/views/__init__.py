"""The dashboard pages (login required by the middleware)."""
