"""Django settings, read from the environment only (see README, "Settings")."""

import importlib.util
import os

import dj_database_url

from monitor.env import BASE_DIR, envbool, envint, envsecret, private_file, var_dir

VAR_DIR = var_dir()
EMBEDDED_DB = not os.getenv("DATABASE_URL")
EMBEDDED_REDIS = not os.getenv("REDIS_URL")

SECRET_KEY = envsecret("SECRET_KEY") or private_file(
    VAR_DIR / "secret_key", lambda: __import__("secrets").token_urlsafe(50)
)
DEBUG = envbool("DEBUG", "False")
ALLOWED_HOSTS = os.getenv("ALLOWED_HOSTS", "127.0.0.1,localhost").split(",")
CSRF_TRUSTED_ORIGINS = [o for o in os.getenv("CSRF_TRUSTED_ORIGINS", "").split(",") if o]
SITE_URL = os.getenv("SITE_URL", "http://127.0.0.1:8000")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.postgres",
    "monitor",
    "store",
    "alerts",
    "collectors",
    "dashboards",
    "dashboards.export",
    "workload",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.auth.middleware.LoginRequiredMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "monitor.urls"
WSGI_APPLICATION = "monitor.wsgi.application"
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "/"
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
            ],
        },
    },
]

# With no DATABASE_URL, the embedded pgserver under var/pg (socket only).
DATABASE_URL = os.getenv("DATABASE_URL") or f"postgresql://postgres:@/postgres?host={VAR_DIR / 'pg'}"
DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=60)}
# A Postgres that went away must fail fast: the store then buffers samples in Redis.
DATABASES["default"].setdefault("OPTIONS", {})["connect_timeout"] = envint("DB_CONNECT_TIMEOUT", 5)

REDIS_URL = os.getenv("REDIS_URL") or f"unix://{VAR_DIR / 'redis.sock'}"


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
CELERY_TIMEZONE = "UTC"

# Monitored-server passwords are encrypted with this Fernet key.
CREDENTIAL_KEY = envsecret("CREDENTIAL_KEY") or private_file(
    VAR_DIR / "credential.key",
    lambda: __import__("cryptography.fernet", fromlist=["Fernet"]).Fernet.generate_key().decode(),
)

EMAIL_BACKEND = os.getenv("EMAIL_BACKEND", "django.core.mail.backends.smtp.EmailBackend")
EMAIL_HOST = os.getenv("EMAIL_HOST", "localhost")
EMAIL_PORT = envint("EMAIL_PORT", 25)
EMAIL_HOST_USER = os.getenv("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = envsecret("EMAIL_HOST_PASSWORD")
EMAIL_USE_TLS = envbool("EMAIL_USE_TLS")
EMAIL_TIMEOUT = envint("EMAIL_TIMEOUT", 10)
DEFAULT_FROM_EMAIL = os.getenv("DEFAULT_FROM_EMAIL", "steadystate@localhost")
# Who gets alert e-mails of rules without their own recipients (the built-in ones), comma-separated.
ALERT_RECIPIENTS = [a.strip() for a in os.getenv("ALERT_RECIPIENTS", "").split(",") if a.strip()]

LANGUAGE_CODE = "en-us"
TIME_ZONE = os.getenv("TIME_ZONE", "UTC")
USE_I18N = False
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
# plotly.js served from the plotly package itself (static/vendor/plotly/plotly.min.js):
# the same version as the figures we build, and no CDN (the host may be offline).
STATICFILES_DIRS.append((
    "vendor/plotly",
    os.path.join(importlib.util.find_spec("plotly").submodule_search_locations[0], "package_data"),
))
STATIC_ROOT = BASE_DIR / "staticfiles"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.getenv("LOG_LEVEL", "INFO")},
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
}
