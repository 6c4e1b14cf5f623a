"""The store interface services depend on. Adapters implement it; nothing else touches an engine.

Every method is scoped to one namespace and returns domain models built from explicit
scalar projections: no driver object leaves an adapter.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from thoughtgraph.domain.models import (
    ChangeEvent,
    LineageEdgeHit,
    LineageWalk,
    PageCursor,
    SchemaState,
    ScoredThought,
    StoreHealth,
    Thought,
    ThoughtFilter,
    ThoughtPage,
    ThoughtRecord,
    TimeView,
)


class SyntheticThought(Protocol):
    """What a bulk load needs per thought (used by imports and the benchmark)."""

    @property
    def id(self) -> str: ...
    @property
    def content(self) -> str: ...
    @property
    def agent_id(self) -> str: ...
    @property
    def agent_name(self) -> str: ...
    @property
    def tags(self) -> Sequence[str]: ...
    @property
    def created_at_ms(self) -> int: ...
    @property
    def embedding(self) -> Sequence[float]: ...


@runtime_checkable
class GraphStore(Protocol):
    engine: str

    @property
    def schema(self) -> SchemaState | None:
        """What the store was built with, once ``bootstrap`` ran; no I/O."""
        ...

    async def bootstrap(self, *, embedding_dimension: int, embedder: str) -> SchemaState:
        """Create constraints and indexes idempotently; refuse a store built for another
        embedding dimension with ``SchemaMismatchError``."""
        ...

    async def health(self) -> StoreHealth: ...

    def describe(self) -> dict[str, str]:
        """Where the data lives, for logs (data dir, or URI and database); no secrets."""
        ...

    async def close(self) -> None: ...

    # --- writes ------------------------------------------------------------------------
    async def create_thought(
        self, record: ThoughtRecord, *, event_id: str, event_kind: str
    ) -> int | None:
        """Write the thought, its edges to ``record.thought.source_ids`` and its change event
        atomically. Returns the new revision, or None when nothing was written (a source
        is missing, or the id exists already)."""
        ...

    async def bulk_create_originals(
        self, namespace: str, thoughts: Sequence[SyntheticThought]
    ) -> int: ...

    # --- reads -------------------------------------------------------------------------
    async def get_thoughts(self, namespace: str, ids: Sequence[str]) -> dict[str, Thought]: ...

    async def list_thoughts(
        self,
        namespace: str,
        filter: ThoughtFilter,
        after: PageCursor | None,
        limit: int,
        view: TimeView | None = None,
    ) -> ThoughtPage:
        """Newest first; ``view`` chooses which thoughts are seen (default: active and
        valid now, superseded ones included)."""
        ...

    async def vector_search(
        self,
        namespace: str,
        embedding: Sequence[float],
        k: int,
        min_similarity: float,
        view: TimeView | None = None,
    ) -> list[ScoredThought]:
        """Up to k thoughts of the namespace, most similar first; similarity is cosine.

        The namespace's true nearest, whatever other namespaces hold: each has its own
        vector index, so latency depends on the namespace's own size."""
        ...

    async def fulltext_search(
        self, namespace: str, query: str, k: int, view: TimeView | None = None
    ) -> list[ScoredThought]: ...

    async def refiners(self, namespace: str, ids: Sequence[str]) -> dict[str, list[str]]:
        """For each id, the ids of thoughts that refine or consolidate it, newest first."""
        ...

    async def lineage_walk(
        self, namespace: str, thought_id: str, *, max_depth: int, max_nodes: int
    ) -> LineageWalk:
        """Breadth-first signed distances to the thought's lineage, at most ``max_depth``
        steps each way and ``max_nodes`` thoughts; ``truncated`` if it goes on."""
        ...

    async def search_lineage_edges(
        self, namespace: str, embedding: Sequence[float], k: int
    ) -> list[LineageEdgeHit]: ...

    async def history(self, namespace: str, thought_id: str, limit: int) -> list[ChangeEvent]:
        """Events concerning a subject of any kind (thought, topic, contradiction...)."""
        ...

    async def changes_since(
        self, namespace: str, after_revision: int, limit: int
    ) -> list[ChangeEvent]: ...

    async def current_revision(self, namespace: str) -> int: ...

    async def raw_vector_query(
        self, namespace: str, embedding: Sequence[float], k: int
    ) -> list[str]:
        """The bare engine vector query on the namespace's index (benchmark baseline)."""
        ...
