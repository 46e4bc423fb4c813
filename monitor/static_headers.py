"""Cache headers of the static files WhiteNoise serves.

plotly.min.js is 4.8 MB: it is linked with its version in the query string
(the `plotly_js` template tag), so browsers may keep it for a year; a plotly
upgrade changes the link. Other files keep WhiteNoise's short default.
"""

VERSIONED = "/vendor/plotly/"
YEAR = 365 * 86400


def add_headers(headers, path: str, url: str) -> None:
    if VERSIONED in url:
        headers["Cache-Control"] = f"public, max-age={YEAR}, immutable"
