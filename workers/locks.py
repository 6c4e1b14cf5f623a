"""Single-flight per namespace: at most one consolidation or forgetting run at a time.

Two runs over one namespace would read each other's half-written state (a consolidation
merging thoughts that a purge is deleting). The lock is a Redis key on the broker, which
every worker of a deployment already shares. It expires by itself after ``timeout_s``,
longer than a run may last (the tasks' hard time limit), so a worker killed mid-run
blocks the namespace only until then; a live run releases it in ``finally``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import redis
import structlog
from redis.exceptions import LockError

log = structlog.get_logger(__name__)


class NamespaceBusyError(Exception):
    """Another run holds the namespace: try again later rather than overlap."""

    def __init__(self, namespace: str) -> None:
        super().__init__(f"a maintenance run already holds namespace {namespace!r}")
        self.namespace = namespace


def lock_key(namespace: str) -> str:
    return f"thoughtgraph:lock:namespace:{namespace}"


@contextlib.contextmanager
def single_flight(client: redis.Redis, namespace: str, *, timeout_s: float) -> Iterator[None]:
    """Hold the namespace's lock for the block, or raise ``NamespaceBusyError`` at once."""
    lock = client.lock(lock_key(namespace), timeout=timeout_s, blocking=False)
    if not lock.acquire(blocking=False):
        raise NamespaceBusyError(namespace)
    try:
        yield
    finally:
        try:
            lock.release()
        except LockError:
            # Expired (the run outlived timeout_s) and maybe taken by another run: theirs
            # now, not ours to delete.
            log.warning("lock.lost", namespace=namespace, timeout_s=timeout_s)
