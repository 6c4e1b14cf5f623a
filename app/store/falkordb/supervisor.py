"""Keeps the embedded engine serving: restarts it when it dies (without waiting for a
request), holds statements back while it reloads and rebuilds its indexes, and refuses
writes before its disk is full.

A full disk is where the engine loses data: with ``appendfsync always`` it exits on the
first append it cannot write (nothing acknowledged is lost, but every write after that
crashes it again), with ``everysec`` it goes on acknowledging writes it may never persist
(one of 1,277 was gone after a SIGKILL on a 5 MB filesystem). So writes are refused with
``STORE_FULL`` while free space is under a reserve, and a write that met a full disk
anyway is never replayed onto it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable

import structlog

from thoughtgraph.domain.errors import StoreError, StoreFullError
from thoughtgraph.store.falkordb.engine import EmbeddedFalkorDB

log = structlog.get_logger(__name__)


# Below this much free space an engine that cannot start is taken to lack disk.
FULL_BYTES = 1024 * 1024


class EngineSupervisor:
    """Constructing it does no I/O; ``start_watching`` starts the watchdog task."""

    def __init__(
        self,
        engine: EmbeddedFalkorDB,
        *,
        min_free_bytes: int,
        reconnect: Callable[[], Awaitable[None]],
        wait_for_indexes: Callable[[], Awaitable[None]],
    ) -> None:
        self.engine = engine
        self.min_free_bytes = min_free_bytes
        self._reconnect = reconnect
        self._wait_for_indexes = wait_for_indexes
        self._serving = asyncio.Event()
        self._serving.set()
        self._lock = asyncio.Lock()
        self._watchdog: asyncio.Task[None] | None = None

    # --- what statements ask -----------------------------------------------------------
    @property
    def serving(self) -> bool:
        """The engine answers and the indexes it loaded or rebuilt are usable."""
        return self._serving.is_set()

    async def until_serving(self, timeout_s: float) -> None:
        if self._serving.is_set():
            return
        try:
            await asyncio.wait_for(self._serving.wait(), timeout_s)
        except TimeoutError:
            raise StoreError("the embedded engine is restarting; try again") from None

    def write_refusal(self) -> str | None:
        try:
            free = self.engine.free_bytes()
        except OSError as exc:
            return f"the data dir's free space cannot be read: {exc.strerror}"
        if free < self.min_free_bytes:
            return (
                f"the data dir's disk has {free:,} bytes free, under the "
                f"{self.min_free_bytes:,}-byte reserve: writes are refused until space is freed"
            )
        return None

    def refuse_write_if_full(self) -> None:
        refusal = self.write_refusal()
        if refusal is not None:
            raise StoreFullError(refusal)

    async def recover_from_failed_write(self, cause: BaseException) -> None:
        """After a write broke the connection: bring the engine back, and refuse the
        write if it died of a full disk (replaying it would crash the engine again)."""
        died_of_full_disk = self.engine.died_of_full_disk()
        self.engine.last_exit_full_disk = False
        await self.recover(cause)
        if died_of_full_disk or self.engine.last_exit_full_disk:
            raise StoreFullError("the engine stopped on a write it could not append: disk full")
        self.refuse_write_if_full()

    # --- bringing it back --------------------------------------------------------------
    async def recover(self, cause: BaseException) -> None:
        """Restart a dead engine and wait until it serves with usable indexes; statements
        wait meanwhile. On a live engine only the connection that broke is lost, and
        the client has already dropped it: nothing stops, nothing else is closed."""
        async with self._lock:
            if self.engine.answers():
                return
            self._serving.clear()
            try:
                if await self.engine.ensure_running():
                    log.warning("engine.restarted", cause=str(cause), pid=self.engine.pid)
                await self._reconnect()
                await self._wait_for_indexes()
            except Exception as exc:  # it did not start, or died again while starting
                if self._disk_is_full():
                    # What the caller can act on is the disk, not the engine.
                    raise StoreFullError("the engine cannot start again: its disk is full") from exc
                raise
            finally:
                self._serving.set()

    def _disk_is_full(self) -> bool:
        try:
            room = self.engine.free_bytes()
        except OSError:
            return False
        full = self.engine.died_of_full_disk() or self.engine.last_exit_full_disk
        return full or room < max(self.min_free_bytes, FULL_BYTES)

    def start_watching(self, interval_s: float) -> None:
        """Watch the engine; statements wait until the indexes it loaded are usable."""
        if self._watchdog is None:
            self._serving.clear()
            self._watchdog = asyncio.create_task(self._watch(interval_s))

    async def stop_watching(self) -> None:
        task, self._watchdog = self._watchdog, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _settle(self) -> None:
        try:
            await self._wait_for_indexes()
        except Exception as exc:  # serve anyway: a statement then reports what is wrong
            log.error("engine.indexes_not_ready", error=str(exc))
        finally:
            self._serving.set()

    async def _watch(self, interval_s: float) -> None:
        await self._settle()
        while True:
            await asyncio.sleep(interval_s)
            if self.engine.is_running():
                continue
            log.warning("engine.died", action="restarting")
            try:
                await self.recover(RuntimeError("the engine process exited"))
            except Exception as exc:  # keep watching: the next round tries again
                log.error("engine.restart_failed", error=str(exc))
