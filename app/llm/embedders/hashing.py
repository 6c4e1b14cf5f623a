"""Deterministic pseudo-random vectors: for benchmarks and wiring tests only."""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

import numpy as np

from thoughtgraph.domain.errors import ConfigurationError
from thoughtgraph.llm.embedders.base import DEFAULT_BATCH_SIZE, TextEmbedder, VectorBatch

if TYPE_CHECKING:
    from thoughtgraph.settings import Settings

DEFAULT_HASH_DIMENSION = 384


class HashEmbedder(TextEmbedder):
    """Maps each text to a pseudo-random unit vector seeded by a hash of the text.

    **Not a semantic embedder.** Equal texts get equal vectors and different texts get
    unrelated (nearly orthogonal) ones; nothing else about meaning survives. Use it for
    benchmarks and wiring tests where loading a model would cost time, never for real
    search. It needs no model, no network and no thread: a few microseconds per text.
    """

    normalized = True

    def __init__(
        self, dimension: int = DEFAULT_HASH_DIMENSION, *, batch_size: int = DEFAULT_BATCH_SIZE
    ) -> None:
        if dimension < 1:
            raise ConfigurationError(
                f"embedding dimension must be at least 1, got {dimension}",
                setting="embedding_dimension",
            )
        super().__init__(name=f"hash:{dimension}", batch_size=batch_size)
        self._dimension = dimension

    @classmethod
    def from_settings(cls, settings: Settings) -> HashEmbedder:
        return cls(
            settings.embedding_dimension or DEFAULT_HASH_DIMENSION,
            batch_size=settings.embedding_batch_size,
        )

    @property
    def dimension(self) -> int:
        return self._dimension

    def _embed_batch(self, texts: list[str]) -> VectorBatch:
        # SHAKE-256 stretches each text into `dimension` signed 16-bit components, spread
        # evenly over [-1, 1); the base class normalises the rows onto the unit sphere.
        width = self._dimension * 2
        raw = b"".join(hashlib.shake_256(t.encode("utf-8")).digest(width) for t in texts)
        ints = np.frombuffer(raw, dtype="<i2").reshape(len(texts), self._dimension)
        return ints.astype(np.float64)

    async def _aembed_batch(self, texts: list[str]) -> VectorBatch:
        # Microseconds per text: cheaper inline than a hop to a worker thread.
        return self._embed_batch(texts)
