"""The services' embedder, measured: latency and batch size of every call."""

from __future__ import annotations

import time
from collections.abc import Sequence

from thoughtgraph.observability.metrics import Metrics
from thoughtgraph.ports.services import Embeddings


class MeasuredEmbedder:
    """An :class:`Embeddings` that times each call of the one it wraps (``kind``: query,
    one text to search with; documents, texts to store)."""

    def __init__(self, inner: Embeddings, metrics: Metrics) -> None:
        self.inner = inner
        self.name = inner.name
        self._latency = {
            kind: metrics.embed_latency.labels(inner.name, kind) for kind in ("query", "documents")
        }
        self._batch = {
            kind: metrics.embed_batch.labels(inner.name, kind) for kind in ("query", "documents")
        }

    @property
    def dimension(self) -> int:
        return self.inner.dimension

    async def async_embed_query(self, text: str) -> list[float]:
        started = time.perf_counter()
        try:
            return await self.inner.async_embed_query(text)
        finally:
            self._observe("query", 1, started)

    async def async_embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        started = time.perf_counter()
        try:
            return await self.inner.async_embed_documents(texts)
        finally:
            self._observe("documents", len(texts), started)

    def _observe(self, kind: str, size: int, started: float) -> None:
        self._latency[kind].observe(time.perf_counter() - started)
        self._batch[kind].observe(size)
