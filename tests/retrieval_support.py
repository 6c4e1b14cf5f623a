"""Helpers of the retrieval tests: thoughts written straight into a real store with
chosen attributes and embeddings, and a search service over it with a settable clock."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Any

from tests.support import LoopThread, repos
from thoughtgraph.domain.models import (
    Thought,
    ThoughtKind,
    ThoughtRecord,
    ThoughtType,
    new_thought_id,
)
from thoughtgraph.features.search.service import SearchService
from thoughtgraph.llm.embedders.base import TextEmbedder
from thoughtgraph.settings import Settings
from thoughtgraph.store.cypher_store import CypherGraphStore

DAY_MS = 86_400_000


class SetClock:
    """A clock tests set; starts at the wall clock."""

    def __init__(self, now_ms: int) -> None:
        self.now = now_ms

    def now_ms(self) -> int:
        return self.now


def near(vector: Sequence[float], noise: float, seed: int) -> list[float]:
    """A unit vector close to ``vector`` (cosine about 1 - noise^2/2)."""
    rng = random.Random(seed)
    moved = [x + rng.gauss(0.0, noise / math.sqrt(len(vector))) for x in vector]
    norm = math.sqrt(sum(x * x for x in moved))
    return [x / norm for x in moved]


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    return dot / math.sqrt(sum(x * x for x in a) * sum(y * y for y in b))


def at_cosine(vector: Sequence[float], target: float, seed: int) -> list[float]:
    """A unit vector whose cosine to ``vector`` is exactly ``target`` (random otherwise)."""
    rng = random.Random(seed)
    norm = math.sqrt(sum(x * x for x in vector))
    unit = [x / norm for x in vector]
    noise = [rng.gauss(0.0, 1.0) for _ in vector]
    along = sum(n * u for n, u in zip(noise, unit, strict=True))
    side = [n - along * u for n, u in zip(noise, unit, strict=True)]
    side_norm = math.sqrt(sum(x * x for x in side))
    rest = math.sqrt(max(0.0, 1.0 - target * target))
    return [target * u + rest * x / side_norm for u, x in zip(unit, side, strict=True)]


class Writer:
    def __init__(
        self, loop: LoopThread, store: CypherGraphStore, embedder: TextEmbedder, ns: str
    ) -> None:
        self.loop, self.store, self.embedder, self.ns = loop, store, embedder, ns
        self._next_ms = 0

    def embed(self, text: str) -> list[float]:
        return list(self.embedder.embed_query(text))

    def thought(
        self,
        content: str,
        *,
        embedding: Sequence[float] | None = None,
        created_at_ms: int,
        **fields: Any,
    ) -> Thought:
        thought = Thought(
            id=new_thought_id(),
            namespace=self.ns,
            type=fields.pop("type", ThoughtType.ORIGINAL),
            content=content,
            agent_id=fields.pop("agent_id", "agent-1"),
            agent_name="Agent",
            pheromone_weight=fields.pop("pheromone_weight", 1.0),
            created_at_ms=created_at_ms,
            kind=fields.pop("kind", ThoughtKind.FACT),
            **fields,
        )
        vector = tuple(embedding if embedding is not None else self.embed(content))
        record = ThoughtRecord(thought=thought, embedding=vector)
        self.loop.run(
            repos(self.store).thoughts.create(
                record, event_id=f"{thought.id}:created", event_kind="created"
            )
        )
        return thought


def search_service(
    store: CypherGraphStore, embedder: TextEmbedder, clock: SetClock, **settings: Any
) -> SearchService:
    return SearchService(
        repos(store), embedder, clock=clock, access=None, settings=Settings(**settings)
    )
