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


class HeldRows:
    """Rows for a CSV export that stop after the header until released: streams held open on demand."""

    def __init__(self) -> None:
        import threading

        self.release = threading.Event()
        self.streaming = threading.Semaphore(0)

    def __call__(self, *args, **kwargs):
        yield ["held"]
        self.streaming.release()
        if not self.release.wait(timeout=60):
            raise TimeoutError("the test never released the held export")
        yield ["done"]
