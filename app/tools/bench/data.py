"""Synthetic thoughts and queries: seeded random unit vectors, so no embedding time is spent."""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

from thoughtgraph.domain.models import now_ms

DIMENSION = 384
LOAD_SEED = 20240601
QUERY_SEED = 7

_WORDS: tuple[str, ...] = (
    "graph",
    "lineage",
    "memory",
    "agent",
    "vector",
    "index",
    "refine",
    "consolidate",
    "search",
    "latency",
    "cache",
    "namespace",
    "engine",
    "thought",
    "source",
    "depth",
    "chain",
    "signal",
    "weight",
    "context",
    "session",
    "tag",
    "pheromone",
    "embedding",
    "cosine",
    "neighbour",
    "recall",
    "precision",
    "schema",
    "revision",
    "event",
)


@dataclass(slots=True)
class BenchThought:
    """One synthetic original; satisfies ``thoughtgraph.store.interface.SyntheticThought``."""

    id: str
    content: str
    agent_id: str
    agent_name: str
    tags: Sequence[str]
    created_at_ms: int
    embedding: Sequence[float] = field(repr=False)


def unit_vectors(rng: np.random.Generator, count: int, dimension: int = DIMENSION) -> np.ndarray:
    """``count`` random vectors uniformly distributed on the unit sphere (float64 rows)."""
    matrix = rng.standard_normal((count, dimension))
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    normalized: np.ndarray = matrix / norms
    return normalized


def random_words(rng: np.random.Generator, count: int) -> str:
    picks = rng.integers(0, len(_WORDS), size=count)
    return " ".join(_WORDS[int(index)] for index in picks)


class ThoughtFactory:
    """Produces synthetic originals in batches; the sequence is fixed by the seed."""

    def __init__(self, seed: int = LOAD_SEED, dimension: int = DIMENSION) -> None:
        self._rng = np.random.default_rng(seed)
        self._dimension = dimension
        self._made = 0
        self._base_ms = now_ms()

    @property
    def made(self) -> int:
        return self._made

    def batch(self, count: int) -> list[BenchThought]:
        vectors = unit_vectors(self._rng, count, self._dimension).tolist()
        thoughts: list[BenchThought] = []
        for offset, vector in enumerate(vectors):
            index = self._made + offset
            agent = index % 8
            thoughts.append(
                BenchThought(
                    id=str(uuid.UUID(bytes=self._rng.bytes(16), version=4)),
                    content=f"synthetic thought {index}: {random_words(self._rng, 8)}",
                    agent_id=f"bench-agent-{agent}",
                    agent_name=f"Bench Agent {agent}",
                    tags=("bench", f"group-{index % 10}"),
                    created_at_ms=self._base_ms + index,
                    embedding=vector,
                )
            )
        self._made += count
        return thoughts

    def batches(self, total: int, batch_size: int) -> Iterator[list[BenchThought]]:
        """Batches that bring the number made so far up to ``total``."""
        while self._made < total:
            yield self.batch(min(batch_size, total - self._made))


class QueryFactory:
    """Random query vectors and random query texts, independent of the loaded data."""

    def __init__(self, seed: int = QUERY_SEED, dimension: int = DIMENSION) -> None:
        self._rng = np.random.default_rng(seed)
        self._dimension = dimension

    def vectors(self, count: int) -> list[list[float]]:
        rows: list[list[float]] = unit_vectors(self._rng, count, self._dimension).tolist()
        return rows

    def texts(self, count: int) -> list[str]:
        serial = int(self._rng.integers(0, 2**31))
        return [f"query {serial}-{i}: {random_words(self._rng, 6)}" for i in range(count)]

    def sentences(self, count: int) -> list[str]:
        """Sentence-like texts of 8-24 words for the embedder throughput measurement."""
        lengths = self._rng.integers(8, 25, size=count)
        return [random_words(self._rng, int(n)).capitalize() + "." for n in lengths]
