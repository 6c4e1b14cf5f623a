"""Single-flight per namespace: at most one consolidation or forgetting run at a time
(and, under a lock of their own, one scan of new thoughts).

Two runs over one namespace would read each other's half-written state (a consolidation
merging thoughts that a purge is deleting). The lock is a Redis key on the broker, which
every worker of a deployment already shares. It is a lease: a short expiry that the
holder renews from a thread while its run goes on, so a live run keeps it however long it
takes, and a worker killed mid-run frees the namespace within one lease (its redelivered
task then takes it), not after the longest a run may last. A live run releases it in
``finally``.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

import redis
import structlog
from redis.exceptions import LockError

log = structlog.get_logger(__name__)


class NamespaceBusyError(Exception):
    """Another run holds the namespace: try again later rather than overlap."""

    def __init__(self, namespace: str, purpose: str = "namespace") -> None:
        super().__init__(f"a {purpose} run already holds namespace {namespace!r}")
        self.namespace = namespace


def lock_key(namespace: str, purpose: str = "namespace") -> str:
    return f"thoughtgraph:lock:{purpose}:{namespace}"


@contextlib.contextmanager
def single_flight(
    client: redis.Redis, namespace: str, *, timeout_s: float, purpose: str = "namespace"
) -> Iterator[None]:
    """Hold the namespace's lock for ``purpose`` (maintenance runs by default) for the
    block, or raise ``NamespaceBusyError`` at once. ``timeout_s`` is the lease, renewed
    every third of it while the block runs."""
    lock = client.lock(lock_key(namespace, purpose), timeout=timeout_s, blocking=False)
    if not lock.acquire(blocking=False):
        raise NamespaceBusyError(namespace, purpose)
    done = threading.Event()

    def renew() -> None:
        while not done.wait(timeout_s / 3):
            try:
                lock.reacquire()
            except Exception as exc:  # lost, or Redis away: the run goes on regardless
                log.warning("lock.not_renewed", namespace=namespace, error=str(exc))

    renewer = threading.Thread(target=renew, name=f"lease-{namespace}", daemon=True)
    renewer.start()
    try:
        yield
    finally:
        done.set()
        renewer.join(timeout=5)
        try:
            lock.release()
        except LockError:
            # Expired (the run outlived timeout_s) and maybe taken by another run: theirs
            # now, not ours to delete.
            log.warning("lock.lost", namespace=namespace, timeout_s=timeout_s)
