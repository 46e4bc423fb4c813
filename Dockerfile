# One image for web, worker and beat (docker-compose.yml picks the command).
FROM python:3.11-slim-bookworm

ENV PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1 PIP_NO_CACHE_DIR=1 \
    STEADYSTATE_VAR=/app/var DJANGO_SETTINGS_MODULE=monitor.settings
WORKDIR /app

COPY requirements.txt .
RUN pip install -r requirements.txt

COPY . .
# Static files are collected into the image; whitenoise serves them. The keys
# here are throw-away: the real ones come from the environment at run time.
RUN SECRET_KEY=build-only CREDENTIAL_KEY=build-only DATABASE_URL=postgres://build@localhost/build \
    REDIS_URL=redis://localhost:6379/0 python manage.py collectstatic --noinput -v0 \
 && useradd --create-home --uid 1000 steadystate \
 && mkdir -p /app/var && chown steadystate /app/var
USER steadystate

EXPOSE 8000
# Threaded workers (monitor/gunicorn_conf.py): a long CSV download is not cut by the worker timeout.
CMD ["gunicorn", "monitor.wsgi:application", "--config", "monitor/gunicorn_conf.py", "--bind", "0.0.0.0:8000", \
     "--workers", "3", "--access-logfile", "-"]
