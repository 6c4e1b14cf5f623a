"""One Runtime per worker process, on an asyncio event loop in a background thread.

Jobs are async functions over a Runtime; Celery tasks are synchronous. Opening a Runtime
per task would reconnect to the store and reload the embedding model every time, and
``asyncio.run`` per task would strand the store's connections on dead loops. So each
worker process keeps one loop running in a daemon thread, opens the Runtime on it once
(attached to the engine the service owns), and tasks hand coroutines to that loop with
``run_coroutine_threadsafe``.

Under the prefork pool the host is started in each child after the fork
(``worker_process_init``): threads do not survive a fork, so nothing here may be started
in the parent. ``start`` only begins opening and returns at once, because a child that
does not report ready within ``worker_proc_alive_timeout`` (4 s) is killed, and loading
a model takes longer; the first task waits for the opening instead.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import threading
from collections.abc import Awaitable, Callable
from typing import TypeVar

import structlog

from thoughtgraph.observability.telemetry import Telemetry
from thoughtgraph.ports.jobs import JobQueue
from thoughtgraph.runtime import Runtime, open_runtime
from thoughtgraph.settings import Settings

log = structlog.get_logger(__name__)

T = TypeVar("T")


class RuntimeHost:
    """Owns this process's loop thread and Runtime. Constructing it does no I/O."""

    def __init__(
        self,
        settings: Settings,
        *,
        queue_factory: Callable[[], JobQueue] | None = None,
        open_timeout_s: float = 120.0,
    ) -> None:
        self._settings = settings
        self._queue_factory = queue_factory
        self._open_timeout_s = open_timeout_s
        self._lock = threading.Lock()
        self._pid: int | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._stop: asyncio.Event | None = None
        self._opened: concurrent.futures.Future[Runtime] | None = None
        self._holder: concurrent.futures.Future[None] | None = None
        self._telemetry: tuple[int, Telemetry] | None = None
        self._telemetry_lock = threading.Lock()

    @property
    def settings(self) -> Settings:
        return self._settings

    @property
    def telemetry(self) -> Telemetry:
        """This process's metrics and tracer, built after the fork (a tracer's export
        thread does not survive one) and kept across runtimes (a failed opening)."""
        with self._telemetry_lock:
            if self._telemetry is None or self._telemetry[0] != os.getpid():
                self._telemetry = (os.getpid(), Telemetry.from_settings(self._settings))
            return self._telemetry[1]

    # --- lifecycle -----------------------------------------------------------------------
    def start(self) -> None:
        """Start the loop thread and begin opening the Runtime; returns at once."""
        with self._lock:
            self._begin_opening()

    def close(self, timeout_s: float = 30.0) -> None:
        """Close the Runtime (store, embedder, queue) and stop the loop. Idempotent."""
        with self._lock:
            loop, thread, holder = self._loop, self._thread, self._holder
            if loop is None or thread is None or self._pid != os.getpid():
                return
            stop = self._stop
            if stop is not None:
                loop.call_soon_threadsafe(stop.set)
            if holder is not None:
                try:
                    holder.result(timeout_s)
                except (concurrent.futures.TimeoutError, concurrent.futures.CancelledError):
                    holder.cancel()
            loop.call_soon_threadsafe(loop.stop)
            thread.join(timeout_s)
            if not thread.is_alive():
                loop.close()
            self._loop = self._thread = self._stop = None
            self._opened = self._holder = None
            if self._telemetry is not None and self._telemetry[0] == os.getpid():
                self._telemetry[1].close()  # exports the spans still queued
            log.info("worker.runtime_closed")

    # --- running jobs ----------------------------------------------------------------------
    def run(self, job: Callable[[Runtime], Awaitable[T]], timeout_s: float) -> T:
        """Run ``job(runtime)`` on the loop and wait for it, at most ``timeout_s``.

        An exception in the job is raised here; if the wait is interrupted (a soft time
        limit, the timeout), the job is cancelled on the loop rather than left running."""
        runtime, loop = self._runtime()
        future = asyncio.run_coroutine_threadsafe(_awaited(job(runtime)), loop)
        try:
            return future.result(timeout_s)
        except BaseException:
            future.cancel()
            raise

    def _runtime(self) -> tuple[Runtime, asyncio.AbstractEventLoop]:
        with self._lock:
            opened = self._begin_opening()
            loop = self._loop
        assert loop is not None
        return opened.result(self._open_timeout_s), loop

    def _begin_opening(self) -> concurrent.futures.Future[Runtime]:
        """The current opening, or a new one if none is under way or the last one failed
        (the engine was not up yet: the next task tries again). Caller holds the lock."""
        if self._pid != os.getpid():
            # Started in a parent before a fork: its thread does not exist here.
            self._loop = self._thread = self._stop = None
            self._opened = self._holder = None
            self._pid = os.getpid()
        if self._loop is None:
            self._loop = asyncio.new_event_loop()
            self._thread = threading.Thread(
                target=self._loop.run_forever, name="thoughtgraph-runtime", daemon=True
            )
            self._thread.start()
        opened = self._opened
        if opened is not None and not (opened.done() and opened.exception() is not None):
            return opened
        opened = concurrent.futures.Future()
        self._opened = opened
        self._holder = asyncio.run_coroutine_threadsafe(self._hold(opened), self._loop)
        return opened

    async def _hold(self, opened: concurrent.futures.Future[Runtime]) -> None:
        """Open the Runtime, publish it, and keep it open until ``close``."""
        self._stop = asyncio.Event()
        queue = self._queue_factory() if self._queue_factory else None
        try:
            telemetry = self.telemetry
            async with open_runtime(
                self._settings, attach=True, queue=queue, telemetry=telemetry
            ) as runtime:
                log.info("worker.runtime_opened", engine=runtime.store.engine, pid=os.getpid())
                opened.set_result(runtime)
                await self._stop.wait()
        except Exception as exc:
            if opened.done():
                log.warning("worker.runtime_close_failed", error=str(exc))
            else:
                log.warning("worker.runtime_open_failed", error=str(exc))
                opened.set_exception(exc)


async def _awaited(awaitable: Awaitable[T]) -> T:
    return await awaitable
