"""gunicorn settings shared by `manage.py up` and the Dockerfile (gunicorn -c monitor/gunicorn_conf.py).

Sync workers are killed `timeout` seconds into any request, even one that is
streaming a CSV: the download ends short after the 200 was sent. Threaded
workers keep reporting to the arbiter while a thread streams, so a long export
completes; the timeout then only catches a worker that is stuck for real.
"""

worker_class = "gthread"
# Requests at once per worker process: a long export holds one; at most EXPORT_PER_PROCESS (4) of
# them stream in one process, so at least 4 threads are left for the pages.
threads = 8
timeout = 60  # a worker silent this long is stuck (not a request this long)
graceful_timeout = 5
control_socket_disable = True


def post_worker_init(worker) -> None:
    """Once the worker has loaded the app: its start-up heap out of garbage collections (monitor/web_gc.py)."""
    from monitor.web_gc import settle_heap  # Django is set up only once the worker has loaded the app

    settle_heap()
