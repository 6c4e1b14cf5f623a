"""``CeleryJobQueue``: the application's JobQueue over Celery, publishing tasks by name.

A write's contradiction scan must never slow or fail the write: ``scan_after_write`` puts
the write's namespace on a bounded in-memory queue that one background thread publishes
from, and drops it (logged) when that queue is full, e.g. while the broker is down.

What a write asks for is a scan of its namespace's new thoughts (``SCAN_NEW``): the worker
reads them from the change log, past the namespace's scan cursor. So a request that never
leaves this process (dropped, or lost with a crashed service) loses nothing: the worker's
sweep (``TG_SCAN_SWEEP_EVERY_S``) asks again. The thread coalesces: writes within
``scan_coalesce_s`` of the first request go out as one task per namespace, so a burst of
writes costs the worker one scan, and the CPU it leaves is the writers'.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any

import structlog
from celery import Celery

from thoughtgraph.domain.errors import ThoughtgraphError
from thoughtgraph.settings import Settings
from thoughtgraph.workers import names
from thoughtgraph.workers.broker import redis_client
from thoughtgraph.workers.names import QUEUE

log = structlog.get_logger(__name__)

DEFAULT_MAX_PENDING_SCANS = 1000


class JobQueueUnavailableError(ThoughtgraphError):
    """The broker did not take a job that the caller asked for explicitly."""

    code = "QUEUE_UNAVAILABLE"
    public_message = "The job queue is unavailable; the job was not queued. Try again."


class CeleryJobQueue:
    """Publishes ``thoughtgraph.*`` tasks through ``celery_app``. Constructing it does no
    I/O; the publishing thread starts with the first scan request."""

    def __init__(
        self,
        celery_app: Celery,
        *,
        scan_on_write: bool = True,
        max_pending: int = DEFAULT_MAX_PENDING_SCANS,
        coalesce_s: float = 0.5,
    ) -> None:
        self._app = celery_app
        self._scan_on_write = scan_on_write
        self._coalesce_s = coalesce_s
        self._pending: queue.Queue[str | None] = queue.Queue(max_pending)  # namespaces
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._closed = False

    # --- JobQueue ----------------------------------------------------------------------------
    def scan_after_write(self, namespace: str, thought_ids: Sequence[str]) -> None:
        if not self._scan_on_write or not thought_ids or self._closed:
            return
        self._ensure_publisher()
        try:
            self._pending.put_nowait(namespace)
        except queue.Full:
            log.warning(
                "jobs.scan_dropped",
                namespace=namespace,
                thoughts=len(thought_ids),
                reason="publish queue full (is the broker down?)",
            )

    async def enqueue_consolidation(self, namespace: str, run_id: str, dry_run: bool) -> None:
        await asyncio.to_thread(self._send, names.CONSOLIDATE, namespace, run_id, dry_run)

    async def enqueue_namespace_scan(self, namespace: str) -> None:
        await asyncio.to_thread(self._send, names.SCAN_NAMESPACE, namespace)

    async def enqueue_insights(self, namespace: str) -> bool:
        await asyncio.to_thread(self._send, names.WRITE_INSIGHTS, namespace)
        return True

    async def enqueue_extraction(self, namespace: str, thought_id: str) -> bool:
        await asyncio.to_thread(self._send, names.EXTRACT_FACTS, namespace, thought_id)
        return True

    async def enqueue_reembed(self, overrides: Mapping[str, Any]) -> bool:
        await asyncio.to_thread(self._send, names.REEMBED, dict(overrides))
        return True

    def depths(self) -> dict[str, int]:
        """Messages waiting in the broker per queue (the /metrics queue depth gauge): kombu
        keeps a Redis list per queue and priority step; their lengths are summed."""
        client = redis_client(str(self._app.conf.broker_url), timeout_s=2.0)
        try:
            return {QUEUE: _queue_length(client, QUEUE)}
        finally:
            client.close()

    def close(self, timeout_s: float = 5.0) -> None:
        """Publish what is pending (for at most ``timeout_s``), then stop the thread."""
        with self._lock:
            self._closed = True
            thread = self._thread
        if thread is None:
            return
        with contextlib.suppress(queue.Full):
            self._pending.put(None, timeout=timeout_s)
        thread.join(timeout_s)

    # --- publishing --------------------------------------------------------------------------
    def _send(self, task: str, *args: Any) -> None:
        try:
            # ignore_result: nobody here waits for one, and asking for it would subscribe
            # to the result backend, which retries for ~20 s when the broker is down.
            self._app.send_task(task, args=args, ignore_result=True)
        except Exception as exc:
            log.warning("jobs.publish_failed", task=task, error=str(exc))
            raise JobQueueUnavailableError(f"the broker did not take {task}: {exc}") from exc

    def _ensure_publisher(self) -> None:
        with self._lock:
            if self._thread is None and not self._closed:
                self._thread = threading.Thread(
                    target=self._publish_scans, name="thoughtgraph-scan-publisher", daemon=True
                )
                self._thread.start()

    def _publish_scans(self) -> None:
        while True:
            first = self._pending.get()
            if first is None:
                return
            batch, stopping = self._gather([first])
            for namespace in dict.fromkeys(batch):  # once each, in order of first request
                with contextlib.suppress(JobQueueUnavailableError):  # logged by _send
                    self._send(names.SCAN_NEW, namespace)
            if stopping:
                return

    def _gather(self, batch: list[str]) -> tuple[list[str], bool]:
        """More requests, for up to the coalescing window after the first; True when
        ``close`` asked the thread to stop (what was gathered is still published)."""
        deadline = time.monotonic() + self._coalesce_s
        while (left := deadline - time.monotonic()) > 0:
            try:
                item = self._pending.get(timeout=left)
            except queue.Empty:
                break
            if item is None:
                return batch, True
            batch.append(item)
        return batch, False


# kombu's Redis transport: a list per queue, plus one per non-zero priority step.
PRIORITY_SUFFIXES = ("", "\x06\x163", "\x06\x166", "\x06\x169")


def _queue_length(client: Any, name: str) -> int:
    pipe = client.pipeline(transaction=False)
    for suffix in PRIORITY_SUFFIXES:
        pipe.llen(name + suffix)
    return sum(int(n) for n in pipe.execute())


def celery_job_queue(celery_app: Celery, settings: Settings) -> CeleryJobQueue:
    return CeleryJobQueue(
        celery_app,
        scan_on_write=settings.scan_on_write,
        coalesce_s=settings.scan_coalesce_s,
    )
