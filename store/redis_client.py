"""The process's Redis client (settings.REDIS_URL): collectors' state and the store's buffer share it."""

from functools import lru_cache

import redis
from django.conf import settings


@lru_cache(maxsize=1)
def shared() -> redis.Redis:
    return redis.Redis.from_url(settings.REDIS_URL, socket_timeout=5, health_check_interval=30)
