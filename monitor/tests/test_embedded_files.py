"""The embedded Redis keeps its snapshot (the registry's encrypted passwords among it) to its owner."""

import stat

from monitor.runtime.embedded import _redis, redis_socket, redis_start, redis_stop


def mode(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_redis_snapshot_and_log_are_private(tmp_path):
    (tmp_path / "redis.log").write_text("made by an older version\n")
    (tmp_path / "redis.log").chmod(0o644)
    redis_start(tmp_path)
    try:
        _redis(redis_socket(tmp_path)).save()
        assert mode(tmp_path / "redis.rdb") == 0o600
        assert mode(tmp_path / "redis.log") == 0o600
    finally:
        redis_stop(tmp_path)
    assert mode(tmp_path / "redis.rdb") == 0o600  # saved again on shutdown
