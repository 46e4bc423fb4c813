"""A WSGI app streaming for a few seconds, to test that the web server lets a long download finish."""

import time

SECONDS = 4.0


def app(environ, start_response):
    start_response("200 OK", [("Content-Type", "text/plain")])

    def body():
        started = time.monotonic()
        while time.monotonic() - started < SECONDS:
            yield b"row\n"
            time.sleep(0.25)
        yield b"END\n"

    return body()
