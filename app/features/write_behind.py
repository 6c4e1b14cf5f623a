"""Writes that follow a request instead of delaying it: what services record as a side
effect (usage counts, operational events) is buffered per namespace and written a moment
later by one background task, a statement per namespace. Best effort: a write that fails
is logged and dropped, never raised into an operation."""

from __future__ import annotations

import abc
import asyncio
import contextlib
import contextvars
from typing import Generic, TypeVar

import structlog

log = structlog.get_logger(__name__)

Batch = TypeVar("Batch")


class WriteBehind(abc.ABC, Generic[Batch]):
    """Holds a ``Batch`` per namespace; ``_write`` stores one, ``interval_s`` after the
    first thing was buffered."""

    not_recorded = "write_behind.not_recorded"  # the log event of a dropped write

    def __init__(self, interval_s: float) -> None:
        self._interval_s = interval_s
        self._pending: dict[str, Batch] = {}
        self._task: asyncio.Task[None] | None = None

    @abc.abstractmethod
    def _empty(self) -> Batch:
        """A namespace's batch before anything is added to it."""

    @abc.abstractmethod
    async def _write(self, namespace: str, batch: Batch) -> None: ...

    def _batch(self, namespace: str) -> Batch:
        """The namespace's pending batch to add to; the write is scheduled."""
        batch = self._pending.get(namespace)
        if batch is None:
            batch = self._pending[namespace] = self._empty()
        if self._task is None:
            with contextlib.suppress(RuntimeError):  # no running loop: written at close
                # A context of its own: the write is nobody's request (nor in its trace).
                self._task = asyncio.get_running_loop().create_task(
                    self._flush_soon(), context=contextvars.Context()
                )
        return batch

    async def _flush_soon(self) -> None:
        try:
            await asyncio.sleep(self._interval_s)
        finally:
            self._task = None
        await self.flush()

    async def flush(self) -> None:
        pending, self._pending = self._pending, {}
        for namespace, batch in pending.items():
            try:
                await self._write(namespace, batch)
            except Exception as exc:  # best effort: never fail the operation it follows
                log.warning(self.not_recorded, namespace=namespace, error=str(exc))

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        await self.flush()
