"""Where the broker is, and a plain Redis client on it (for locks and start-up waits).

On a single machine the broker is the embedded engine itself: FalkorDB is a Redis server,
so Celery talks to it over the engine's unix socket and nothing else has to run. Its keys
go to database 1, away from the graphs in database 0, so nothing that lists or scans the
graph keyspace ever meets a queue. Deployments name a Redis with ``TG_BROKER_URL``.
"""

from __future__ import annotations

import time
from urllib.parse import parse_qs, urlsplit

import redis
from redis.exceptions import RedisError

from thoughtgraph.domain.errors import ConfigurationError
from thoughtgraph.settings import Settings
from thoughtgraph.store.factory import embedded_socket_path

# Celery's keys on the embedded engine: not database 0, where the graphs live.
EMBEDDED_BROKER_DB = 1
# What Celery, the locks and the waits below can all speak.
REDIS_SCHEMES = ("redis", "rediss", "redis+socket")


def broker_url_for(settings: Settings) -> str:
    """``TG_BROKER_URL``, else the embedded engine's Redis on its socket.

    With Neo4j there is no embedded engine to borrow, so a worker (or a service expecting
    one) without a broker cannot start; say so instead of waiting on a socket that no
    process will ever open."""
    if settings.broker_url:
        scheme = urlsplit(settings.broker_url).scheme
        if scheme not in REDIS_SCHEMES:
            raise ConfigurationError(
                f"TG_BROKER_URL must name a Redis ({', '.join(REDIS_SCHEMES)}), not {scheme!r}: "
                "the workers keep their per-namespace locks on the broker",
                broker_scheme=scheme,
            )
        return settings.broker_url
    if settings.neo4j_uri:
        raise ConfigurationError(
            "with TG_NEO4J_URI there is no embedded engine to use as the broker: "
            "set TG_BROKER_URL to a Redis (e.g. redis://localhost:6379/0) for the worker, "
            "beat and the service"
        )
    return f"redis+socket://{embedded_socket_path(settings)}?virtual_host={EMBEDDED_BROKER_DB}"


def redis_client(url: str, *, timeout_s: float = 10.0) -> redis.Redis:
    """A redis-py client for a broker URL, including kombu's ``redis+socket://`` form
    (which redis-py does not read). Builds the client; connects on first command."""
    parts = urlsplit(url)
    if parts.scheme == "redis+socket":
        query = parse_qs(parts.query)
        db = int(query.get("virtual_host", ["0"])[0] or 0)
        return redis.Redis(
            unix_socket_path=parts.path, db=db, socket_timeout=timeout_s, password=parts.password
        )
    return redis.Redis.from_url(url, socket_timeout=timeout_s, socket_connect_timeout=timeout_s)


def wait_for_broker(url: str, timeout_s: float) -> None:
    """Until the broker answers PING. A worker may start before the engine or Redis it
    uses is up (the service loading its model first, a container started early)."""
    deadline = time.monotonic() + timeout_s
    while True:
        client = redis_client(url, timeout_s=2.0)
        try:
            client.ping()
            return
        except (OSError, RedisError) as exc:
            if time.monotonic() > deadline:
                raise ConfigurationError(
                    f"the broker did not answer within {timeout_s:.0f} s: {exc}. On one machine "
                    "start `thoughtgraph serve` on this data dir (its engine is the broker); "
                    "otherwise check TG_BROKER_URL",
                ) from exc
        finally:
            client.close()
        time.sleep(0.2)
