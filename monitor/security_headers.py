"""The Content-Security-Policy header on every answer (CONTENT_SECURITY_POLICY; empty: none).

Django 5.2 has no CSP of its own. The default allows scripts only from our own static files, so an
injected inline script or handler does not run; Plotly sets inline styles, hence 'unsafe-inline' there.
"""

from django.conf import settings
from django.http import HttpRequest, HttpResponse

DEFAULT_POLICY = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
                  "img-src 'self' data: blob:; object-src 'none'; base-uri 'self'; form-action 'self'; "
                  "frame-ancestors 'none'")


class ContentSecurityPolicyMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if settings.CONTENT_SECURITY_POLICY:
            response.headers.setdefault("Content-Security-Policy", settings.CONTENT_SECURITY_POLICY)
        return response
