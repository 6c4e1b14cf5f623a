"""The embedder contract shared by every backend."""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt
from neo4j_graphrag.embeddings.base import Embedder

from thoughtgraph.domain.errors import ConfigurationError, EmbeddingError

DEFAULT_BATCH_SIZE = 32

# What a backend may hand back for one batch: a 2-D array or one float sequence per text.
VectorBatch = npt.NDArray[np.floating[Any]] | Sequence[Sequence[float]]


class TextEmbedder(Embedder, ABC):
    """Turns text into fixed-size float vectors.

    A ``neo4j_graphrag`` :class:`Embedder`, so any instance can be handed to a
    neo4j-graphrag retriever. On top of that contract it adds a stable ``name``
    (``"<backend>:<model>"``, stored next to vectors so a model change is detectable),
    the vector ``dimension``, batched document embedding and async variants that never
    block the event loop.

    Vectors are plain ``list[float]``, L2-normalised when ``normalized`` is true. Every
    failure, whatever the backend raised, comes out as
    :class:`~thoughtgraph.domain.errors.EmbeddingError`.

    Subclasses implement :meth:`_embed_batch` (synchronous, may raise anything) and, when
    they have a native async client, :meth:`_aembed_batch`; the default runs
    :meth:`_embed_batch` in a worker thread.
    """

    name: str
    #: Whether vectors are L2-normalised before they are returned.
    normalized: ClassVar[bool] = False

    def __init__(self, *, name: str, batch_size: int = DEFAULT_BATCH_SIZE) -> None:
        super().__init__()
        if batch_size < 1:
            raise ConfigurationError(
                f"embedding batch size must be at least 1, got {batch_size}",
                setting="embedding_batch_size",
            )
        self.name = name
        self.batch_size = batch_size

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, dimension={self.dimension})"

    # --- what a backend provides -----------------------------------------------------

    @property
    @abstractmethod
    def dimension(self) -> int:
        """Length of every vector this embedder returns."""

    @abstractmethod
    def _embed_batch(self, texts: list[str]) -> VectorBatch:
        """Embed one batch (at most ``batch_size`` texts), in order."""

    async def _aembed_batch(self, texts: list[str]) -> VectorBatch:
        return await asyncio.to_thread(self._embed_batch, texts)

    # --- public API ------------------------------------------------------------------

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        items = _as_list(texts)
        vectors: list[list[float]] = []
        for batch in self._batches(items):
            try:
                result = self._embed_batch(batch)
            except EmbeddingError:
                raise
            except Exception as exc:
                raise self._failure(exc) from exc
            vectors.extend(self._checked(batch, result))
        return vectors

    async def async_embed_query(self, text: str) -> list[float]:
        return (await self.async_embed_documents([text]))[0]

    async def async_embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        items = _as_list(texts)
        vectors: list[list[float]] = []
        for batch in self._batches(items):
            try:
                result = await self._aembed_batch(batch)
            except EmbeddingError:
                raise
            except Exception as exc:
                raise self._failure(exc) from exc
            vectors.extend(self._checked(batch, result))
        return vectors

    # --- helpers ---------------------------------------------------------------------

    def _batches(self, items: list[str]) -> Iterator[list[str]]:
        for start in range(0, len(items), self.batch_size):
            yield items[start : start + self.batch_size]

    def _failure(self, exc: BaseException) -> EmbeddingError:
        detail = str(exc).strip() or "no details"
        extra: dict[str, Any] = {}
        status = getattr(exc, "status_code", None)  # HTTP errors from provider clients
        if isinstance(status, int):
            extra["status_code"] = status
        return EmbeddingError(
            f"Embedding with {self.name} failed: {type(exc).__name__}: {detail}",
            embedder=self.name,
            **extra,
        )

    def _checked(self, batch: list[str], result: VectorBatch) -> list[list[float]]:
        """Validate a backend answer (count, size, finite values) and convert it to lists."""
        if isinstance(result, np.ndarray) and result.ndim != 2:
            raise EmbeddingError(
                f"Embedding with {self.name} failed: expected a 2-D array of vectors, "
                f"got shape {result.shape}",
                embedder=self.name,
            )
        if len(result) != len(batch):
            raise EmbeddingError(
                f"Embedding with {self.name} failed: sent {len(batch)} texts, "
                f"got {len(result)} vectors back",
                embedder=self.name,
            )
        if not batch:
            return []
        sizes = {result.shape[1]} if isinstance(result, np.ndarray) else {len(v) for v in result}
        wrong = sorted(sizes - {self.dimension})
        if wrong:
            raise EmbeddingError(
                f"Embedding with {self.name} failed: expected {self.dimension}-dimensional "
                f"vectors, got {wrong[0]} (check embedding_dimension and the model)",
                embedder=self.name,
                expected_dimension=self.dimension,
                actual_dimension=wrong[0],
            )
        try:
            matrix = np.asarray(result, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise EmbeddingError(
                f"Embedding with {self.name} failed: the model returned non-numeric values",
                embedder=self.name,
            ) from exc
        if not np.isfinite(matrix).all():
            raise EmbeddingError(
                f"Embedding with {self.name} failed: the model returned non-finite values",
                embedder=self.name,
            )
        if self.normalized:
            matrix = l2_normalize(matrix)
        vectors: list[list[float]] = matrix.tolist()
        return vectors


def _as_list(texts: Sequence[str]) -> list[str]:
    if isinstance(texts, str):
        raise TypeError("embed_documents() takes a sequence of strings, not a single string")
    items = list(texts)
    for index, text in enumerate(items):
        if not isinstance(text, str):
            raise TypeError(f"text #{index} is {type(text).__name__}, expected str")
    return items


def l2_normalize(matrix: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Row-wise L2 normalisation; all-zero rows stay zero."""
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0.0] = 1.0
    normalized: npt.NDArray[np.float64] = matrix / norms
    return normalized
