"""Django settings, read from the environment only (see README, "Settings")."""

from datetime import timedelta
from pathlib import Path

import dj_database_url
import plotly

from monitor.env import BASE_DIR, envbool, envchoice, envint, envlist, envsecret, envstr, private_file, var_dir
from monitor.security_headers import DEFAULT_POLICY
from monitor.static_headers import add_headers as add_static_headers

LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")

VAR_DIR = var_dir()
EMBEDDED_DB = not envstr("DATABASE_URL")
EMBEDDED_REDIS = not envstr("REDIS_URL")

SECRET_KEY = envsecret("SECRET_KEY") or private_file(
    VAR_DIR / "secret_key", lambda: __import__("secrets").token_urlsafe(50)
)
DEBUG = envbool("DEBUG")
ALLOWED_HOSTS = envlist("ALLOWED_HOSTS", "127.0.0.1,localhost")
CSRF_TRUSTED_ORIGINS = envlist("CSRF_TRUSTED_ORIGINS")

# Behind a TLS proxy (README, Deployment): cookies only over HTTPS, HSTS, and the proxy's word
# (X-Forwarded-Proto: https) that the request came over TLS, without which HSTS is never sent.
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = envbool("SECURE_COOKIES")
SECURE_HSTS_SECONDS = envint("HSTS_SECONDS", 0, lo=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = envbool("HSTS_INCLUDE_SUBDOMAINS")
if envbool("TRUST_X_FORWARDED_PROTO"):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
CONTENT_SECURITY_POLICY = envstr("CONTENT_SECURITY_POLICY", DEFAULT_POLICY)
SITE_URL = envstr("SITE_URL", "http://127.0.0.1:8000")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.postgres",
    "axes",
    "monitor",
    "servers",
    "store",
    "alerts",
    "collectors",
    "dashboards",
    "dashboards.export",
    "workload",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "monitor.security_headers.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.auth.middleware.LoginRequiredMiddleware",
    "dashboards.bearer.BearerTokenMiddleware",  # API tokens, on the views that accept them
    "monitor.roles.RoleMiddleware",  # viewers / operators / admins: what each may do
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "axes.middleware.AxesMiddleware",  # last: turns a locked-out login into its 429 page
]

# Login throttling (django-axes): LOGIN_FAILURE_LIMIT wrong passwords for one user name, or from one
# address, lock logins for it until LOGIN_COOLOFF_MINUTES after the last failure; a success forgives.
AUTHENTICATION_BACKENDS = ["axes.backends.AxesStandaloneBackend", "django.contrib.auth.backends.ModelBackend"]
AXES_FAILURE_LIMIT = envint("LOGIN_FAILURE_LIMIT", 10, lo=1)
AXES_COOLOFF_TIME = timedelta(minutes=envint("LOGIN_COOLOFF_MINUTES", 15, lo=1))
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]
AXES_RESET_ON_SUCCESS = True
AXES_USERNAME_CALLABLE = "monitor.login_throttle.username"
AXES_VERBOSE = False  # no banner on every manage.py command; failures and lockouts are still logged
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
AXES_DISABLE_ACCESS_LOG = True  # successful logins are not what this is for, and would grow without end

ROOT_URLCONF = "monitor.urls"
WSGI_APPLICATION = "monitor.wsgi.application"
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "dashboards:fleet"
LOGOUT_REDIRECT_URL = "login"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "monitor.roles.context",
                "alerts.watchdog.context",
                "dashboards.query_params.dropped_params",
            ],
        },
    },
]

# A form shown again with its errors never writes back a NUL character (monitor.form_renderer).
FORM_RENDERER = "monitor.form_renderer.Renderer"

# With no DATABASE_URL, the embedded pgserver under var/pg (socket only).
DATABASE_URL = envstr("DATABASE_URL") or f"postgresql://postgres:@/postgres?host={VAR_DIR / 'pg'}"
DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=60)}
# A Postgres that went away must fail fast: the store then buffers samples in Redis.
DATABASES["default"].setdefault("OPTIONS", {})["connect_timeout"] = envint("DB_CONNECT_TIMEOUT", 5, lo=1)

REDIS_URL = envstr("REDIS_URL") or f"unix://{VAR_DIR / 'redis.sock'}"


def _celery_url(url: str) -> str:
    # kombu spells a unix socket "redis+socket://", redis-py "unix://".
    return "redis+socket://" + url[len("unix://"):] if url.startswith("unix://") else url


CELERY_BROKER_URL = _celery_url(REDIS_URL)
CELERY_RESULT_BACKEND = None
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
# A worker reserves only the poll batches it can start: with several workers, prefetched
# batches would wait in a busy one (and expire) while another sits idle.
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# Celery's Django fixup closes a task thread's PostgreSQL connection around every task unless this
# is set; monitor.celery keeps it instead, closing only broken or CONN_MAX_AGE-old ones (the fixup
# still closes one every 2 x this many tasks).
CELERY_DB_REUSE_MAX = 1_000_000
CELERY_TIMEZONE = "UTC"

# Monitored-server passwords are encrypted with this Fernet key.
CREDENTIAL_KEY = envsecret("CREDENTIAL_KEY") or private_file(
    VAR_DIR / "credential.key",
    lambda: __import__("cryptography.fernet", fromlist=["Fernet"]).Fernet.generate_key().decode(),
)

EMAIL_BACKEND = envstr("EMAIL_BACKEND", "django.core.mail.backends.smtp.EmailBackend")
EMAIL_HOST = envstr("EMAIL_HOST", "localhost")
EMAIL_PORT = envint("EMAIL_PORT", 25, lo=1, hi=65535)
EMAIL_HOST_USER = envstr("EMAIL_HOST_USER")
EMAIL_HOST_PASSWORD = envsecret("EMAIL_HOST_PASSWORD")
EMAIL_USE_TLS = envbool("EMAIL_USE_TLS")
EMAIL_TIMEOUT = envint("EMAIL_TIMEOUT", 10, lo=1)
WEBHOOK_TIMEOUT = envint("WEBHOOK_TIMEOUT", 5, lo=1, hi=60)
# Webhooks to private and loopback addresses (internal chat relays); link-local, metadata and the like never.
WEBHOOK_PRIVATE_NETWORKS = envbool("WEBHOOK_PRIVATE_NETWORKS", True)
DEFAULT_FROM_EMAIL = envstr("DEFAULT_FROM_EMAIL", "steadystate@localhost")
# Who gets alert e-mails of rules without their own recipients (the built-in ones), comma-separated.
# Checked by alerts.checks at start (`up`, `manage.py check`) and shown on the Alerts page when wrong.
ALERT_RECIPIENTS = envlist("ALERT_RECIPIENTS")
# Test e-mails one user may queue per hour from the Alerts page.
TEST_EMAILS_PER_HOUR = envint("TEST_EMAILS_PER_HOUR", 5, lo=1)

LANGUAGE_CODE = "en-us"
TIME_ZONE = envstr("TIME_ZONE", "UTC")
USE_I18N = False
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS: list[Path | tuple[str, str]] = [BASE_DIR / "static"]
# plotly.js served from the plotly package itself (static/vendor/plotly/plotly.min.js):
# the same version as the figures we build, and no CDN (the host may be offline).
STATICFILES_DIRS.append((
    "vendor/plotly",
    str(Path(plotly.__path__[0]) / "package_data"),
))
STATIC_ROOT = BASE_DIR / "staticfiles"
# collectstatic (run by `up`) writes a gzipped copy of each file, which WhiteNoise
# serves to browsers that accept it (plotly.min.js: 4.8 MB -> 1.4 MB).
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
WHITENOISE_ADD_HEADERS_FUNCTION = add_static_headers
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# `manage.py up`: what it starts and how (its options default to these).
LISTEN_HOST = envstr("LISTEN_HOST", "127.0.0.1")
PORT = envint("PORT", 8000, lo=1, hi=65535)
WEB_WORKERS = envint("WEB_WORKERS", 2, lo=1)
WORKER_CONCURRENCY = envint("WORKER_CONCURRENCY", 16, lo=1)
LOG_LEVEL = envchoice("LOG_LEVEL", "INFO", LOG_LEVELS)
CELERY_LOG_LEVEL = envchoice("CELERY_LOG_LEVEL", "WARNING", LOG_LEVELS)

# The time-series store (store/config.py reads these).
STORE_RAW_RETENTION_DAYS = envint("STORE_RAW_RETENTION_DAYS", 14, lo=1)
STORE_ROLLUP_1M_RETENTION_DAYS = envint("STORE_ROLLUP_1M_RETENTION_DAYS", 90, lo=1)
STORE_ROLLUP_1H_RETENTION_DAYS = envint("STORE_ROLLUP_1H_RETENTION_DAYS", 730, lo=1)
STORE_BUFFER_MAX_SAMPLES = envint("STORE_BUFFER_MAX_SAMPLES", 100_000, lo=1)
STORE_COMPACT_GRACE_SECONDS = envint("STORE_COMPACT_GRACE_SECONDS", 300, lo=0)
STORE_PARTITIONS_AHEAD_HOURS = envint("STORE_PARTITIONS_AHEAD_HOURS", 6, lo=1)
# Statement digests (collectors/sources/statements.py): digests kept per read (the others summed into
# one row), days their per-interval rows are kept (store/statements.py). The interval is per server.
STATEMENTS_TOP_N = envint("STATEMENTS_TOP_N", 200, lo=1, hi=10_000)
STORE_STATEMENTS_RETENTION_DAYS = envint("STORE_STATEMENTS_RETENTION_DAYS", 14, lo=1)

# Collectors: servers per Celery task, and polls at once per worker process. A batch pays ~6-8 ms of
# fixed CPU (task, locks, snapshots, store write); a hung server holds its batch's write (docs/sources.md).
COLLECTORS_BATCH_SIZE = envint("COLLECTORS_BATCH_SIZE", 25, lo=1)
COLLECTORS_THREADS = envint("COLLECTORS_THREADS", 64, lo=1)
# Seconds a silent worker still counts as alive (collectors.state): its poll locks are taken over after that.
COLLECTORS_HEARTBEAT_TTL = envint("COLLECTORS_HEARTBEAT_TTL", 6, lo=1)

# The watchdog (`manage.py watchdog`, run by `up`): blind after this many poll intervals without
# any successful poll; how often it looks.
WATCHDOG_INTERVALS = envint("WATCHDOG_INTERVALS", 3, lo=1)
WATCHDOG_CHECK_SECONDS = envint("WATCHDOG_CHECK_SECONDS", 15, lo=1)
# Its memory (start time, stall mailed), a file so that it works with Redis or PostgreSQL down.
WATCHDOG_STATE_FILE = envstr("WATCHDOG_STATE_FILE") or str(VAR_DIR / "watchdog-state.json")

# CSV exports: most values (rows x columns) one request may ask for.
EXPORT_MAX_CELLS = envint("EXPORT_MAX_CELLS", 20_000_000, lo=1)
# Exports streaming at once: per user (across web processes, counted in Redis), and per web process
# (below gunicorn's threads per worker, monitor/gunicorn_conf.py, so pages always find a thread).
EXPORT_PER_USER = envint("EXPORT_PER_USER", 2, lo=1)
EXPORT_PER_PROCESS = envint("EXPORT_PER_PROCESS", 4, lo=1)

# Tests only: the Chromium the browser tests drive (testing/browser.py).
CHROMIUM = envstr("CHROMIUM")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
}

# Beat entries carry `expires` so a stalled queue never piles up work.
# Each app owns its own entry; the tasks live in that app's tasks.py.
CELERY_BEAT_SCHEDULE = {
    "dispatch-polls": {
        "task": "collectors.tasks.dispatch_due_polls",
        "schedule": 1.0,
        "options": {"expires": 5},
    },
    "store-maintenance": {
        "task": "store.tasks.maintain",
        "schedule": 60.0,
        "options": {"expires": 55},
    },
    "evaluate-alerts": {
        "task": "alerts.tasks.evaluate_rules",
        "schedule": 15.0,
        "options": {"expires": 14},
    },
    "prune-alerts": {
        "task": "alerts.tasks.prune_history",
        "schedule": 3600.0,
        "options": {"expires": 3000},
    },
    "prune-holders": {
        "task": "collectors.tasks.prune_holders",
        "schedule": 3600.0,
        "options": {"expires": 3000},
    },
}
