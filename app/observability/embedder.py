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
        self._metrics = metrics

    @property
    def name(self) -> str:
        return self.inner.name

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
        # Labelled per call: after a re-embed's switch the embedder is another one.
        name = self.inner.name
        self._metrics.embed_latency.labels(name, kind).observe(time.perf_counter() - started)
        self._metrics.embed_batch.labels(name, kind).observe(size)
