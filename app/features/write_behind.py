"""Writes that follow a request instead of delaying it: what services record as a side
effect (usage counts, operational events) is buffered per namespace and written a moment
later by one background task, a statement per namespace. Best effort: a write that fails
is logged and dropped, never raised into an operation.

A namespace whose vector indexes are being built (after a start) has its writes held
until they are: on the embedded engine a write waits for the build's current batch while
holding the engine-wide lock, so one usage count would stall every request to every
namespace for seconds (docs/guide/embedded-engine.md, Restarts). Held writes are merged
into the next batch, written at the latest ``MAX_HOLD_S`` later, and always at close."""

from __future__ import annotations

import abc
import asyncio
import contextlib
import contextvars
from collections.abc import Awaitable, Callable
from typing import Generic, TypeVar

import structlog

from thoughtgraph.store.executor import Executor

log = structlog.get_logger(__name__)

Batch = TypeVar("Batch")
Held = Callable[[str], Awaitable[bool]]  # whether a namespace's writes wait for now
MAX_HOLD_S = 120.0  # a bound: an index that never finishes building cannot keep them


def while_vector_indexes_build(executor: Executor) -> Held:
    """Holds a namespace searched by words but not yet by meaning: one whose vector
    indexes are being built. A namespace never written to is not held."""

    async def held(namespace: str) -> bool:
        by_words, by_meaning = await executor.search_readiness(namespace)
        return by_words and not by_meaning

    return held


class WriteBehind(abc.ABC, Generic[Batch]):
    """Holds a ``Batch`` per namespace; ``_write`` stores one, ``interval_s`` after the
    first thing was buffered."""

    not_recorded = "write_behind.not_recorded"  # the log event of a dropped write

    def __init__(self, interval_s: float, held: Held | None = None) -> None:
        self._interval_s = interval_s
        self._held = held
        self._held_since: dict[str, float] = {}  # monotonic time a namespace was first held
        self._pending: dict[str, Batch] = {}
        self._timer: asyncio.Task[None] | None = None  # waiting out the interval
        self._tasks: set[asyncio.Task[None]] = set()  # every scheduled write, until done

    @abc.abstractmethod
    def _empty(self) -> Batch:
        """A namespace's batch before anything is added to it."""

    @abc.abstractmethod
    def _merge(self, older: Batch, newer: Batch) -> Batch:
        """One batch holding both, the older's entries first."""

    @abc.abstractmethod
    async def _write(self, namespace: str, batch: Batch) -> None: ...

    def _batch(self, namespace: str) -> Batch:
        """The namespace's pending batch to add to; the write is scheduled."""
        batch = self._pending.get(namespace)
        if batch is None:
            batch = self._pending[namespace] = self._empty()
        self._schedule()
        return batch

    def _schedule(self) -> None:
        if self._timer is None:
            with contextlib.suppress(RuntimeError):  # no running loop: written at close
                # A context of its own: the write is nobody's request (nor in its trace).
                task = asyncio.get_running_loop().create_task(
                    self._flush_soon(), context=contextvars.Context()
                )
                self._timer = task
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)

    async def _flush_soon(self) -> None:
        await asyncio.sleep(self._interval_s)
        # From here on this task is writing: close() waits for it instead of cancelling
        # it (a cancelled write lost the batch it had taken), and the next thing buffered
        # schedules a write of its own.
        self._timer = None
        await self.flush(holding=True)
        if self._pending:  # held: looked at again after the next interval
            self._schedule()

    async def flush(self, *, holding: bool = False) -> None:
        """Write every pending batch; with ``holding``, those of namespaces held now
        stay pending."""
        pending, self._pending = self._pending, {}
        for namespace, batch in pending.items():
            if holding and await self._holds(namespace):
                later = self._pending.get(namespace)
                self._pending[namespace] = batch if later is None else self._merge(batch, later)
                continue
            self._held_since.pop(namespace, None)
            try:
                await self._write(namespace, batch)
            except Exception as exc:  # best effort: never fail the operation it follows
                log.warning(self.not_recorded, namespace=namespace, error=str(exc))

    async def _holds(self, namespace: str) -> bool:
        if self._held is None:
            return False
        now = asyncio.get_running_loop().time()
        if now - self._held_since.get(namespace, now) > MAX_HOLD_S:
            return False
        try:
            held = await self._held(namespace)
        except Exception:  # cannot tell: written, as without a hold
            return False
        if held:
            self._held_since.setdefault(namespace, now)
        return held

    async def close(self) -> None:
        """Write everything buffered and end every task (none is left pending, so none is
        destroyed with the loop): a write still waiting out its interval is written now,
        one already writing is waited for; what those writes buffer in turn as well."""
        for _ in range(10):  # a write may buffer more (an ops event about a failed write)
            timer, self._timer = self._timer, None
            if timer is not None:
                timer.cancel()  # still asleep: it holds nothing, the batch is in _pending
            await asyncio.gather(*self._tasks, return_exceptions=True)
            await self.flush()
            if not self._pending and not self._tasks:
                return
