"""The Redis the suite starts for itself is a real, private server, gone after its fixture."""

from __future__ import annotations

import os
from pathlib import Path

import redis as redis_client

from tests.redis_server import RedisServer, redis_server


def test_session_redis_is_a_real_server(redis: RedisServer) -> None:
    client = redis_client.Redis.from_url(redis.url)
    try:
        assert client.ping()
        info = client.info("server")
        assert info["tcp_port"] == redis.port
        assert int(info["process_id"]) == redis.pid
        client.set("thoughtgraph:test", "value")
        assert client.get("thoughtgraph:test") == b"value"
    finally:
        client.close()


def test_redis_server_stops_with_its_fixture(tmp_path: Path) -> None:
    with redis_server(tmp_path / "redis") as server:
        os.kill(server.pid, 0)  # running
        pid = server.pid
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return
    raise AssertionError(f"redis-server {pid} is still running")
