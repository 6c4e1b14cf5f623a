"""Embedding requests that arrive while the model is busy, embedded together.

A CPU model embeds a batch of sentences several times faster than as many calls of one
(docs/design/thoughts.md), while agents contributing at once each ask for one. Here a
request that finds the model free runs at once, with those asked in the same turn of the
event loop (no timer, no added wait), and requests that arrive while the model runs wait
together and go in one call when it is free, up to the batch size, oldest first.
"""

from __future__ import annotations

import asyncio
import weakref
from collections import deque
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass, field

import numpy as np

from thoughtgraph.llm.embedders.base import VectorBatch

EmbedBatch = Callable[[list[str]], VectorBatch]


@dataclass
class _Request:
    texts: list[str]
    answer: asyncio.Future[VectorBatch] = field(repr=False)


class _LoopQueue:
    """The waiting requests of one event loop and the task that drains them."""

    def __init__(self) -> None:
        self.waiting: deque[_Request] = deque()
        self.drainer: asyncio.Task[None] | None = None


class CoalescingRunner:
    """Runs ``embed`` (synchronous, one batch) on ``executor``, joining the requests that
    wait for it into batches of at most ``batch_size`` texts."""

    def __init__(self, embed: EmbedBatch, executor: Callable[[], Executor], batch_size: int):
        self._embed = embed
        self._executor = executor
        self._batch_size = batch_size
        # Per event loop: a future belongs to the loop that made it (tests and the CLI
        # run several loops in turn over one model).
        self._queues: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _LoopQueue] = (
            weakref.WeakKeyDictionary()
        )

    async def embed(self, texts: list[str]) -> VectorBatch:
        loop = asyncio.get_running_loop()
        queue = self._queues.setdefault(loop, _LoopQueue())
        request = _Request(texts, loop.create_future())
        queue.waiting.append(request)
        if queue.drainer is None or queue.drainer.done():
            queue.drainer = loop.create_task(self._drain(queue))
        return await request.answer

    async def _drain(self, queue: _LoopQueue) -> None:
        try:
            while queue.waiting:
                batch = self._next_batch(queue.waiting)
                if batch:
                    await self._run(batch)
        finally:  # cancelled (the loop is closing): nobody is left waiting for ever
            while queue.waiting:
                queue.waiting.popleft().answer.cancel()

    def _next_batch(self, waiting: deque[_Request]) -> list[_Request]:
        """The oldest requests that fit together (always at one at least); those whose
        caller gave up are dropped."""
        batch: list[_Request] = []
        size = 0
        while waiting:
            request = waiting[0]
            if request.answer.done():
                waiting.popleft()
                continue
            if batch and size + len(request.texts) > self._batch_size:
                break
            batch.append(waiting.popleft())
            size += len(request.texts)
        return batch

    async def _run(self, batch: list[_Request]) -> None:
        loop = asyncio.get_running_loop()
        texts = [text for request in batch for text in request.texts]
        try:
            vectors = await loop.run_in_executor(self._executor(), self._embed, texts)
        except asyncio.CancelledError:
            for request in batch:
                request.answer.cancel()
            raise
        except Exception as exc:
            if len(batch) == 1:
                _answer(batch[0], error=exc)
                return
            # One request's text may be what the model refused: each is tried alone, so
            # the others still get their vectors and the failure stays with its own.
            for request in batch:
                await self._run([request])
            return
        start = 0
        for request in batch:
            end = start + len(request.texts)
            _answer(request, vectors=_rows(vectors, start, end))
            start = end


def _rows(vectors: VectorBatch, start: int, end: int) -> VectorBatch:
    if isinstance(vectors, np.ndarray):
        return vectors[start:end]
    return list(vectors[start:end])


def _answer(
    request: _Request, *, vectors: VectorBatch | None = None, error: Exception | None = None
) -> None:
    if request.answer.done():  # the caller was cancelled meanwhile
        return
    if error is not None:
        request.answer.set_exception(error)
    else:
        assert vectors is not None
        request.answer.set_result(vectors)
