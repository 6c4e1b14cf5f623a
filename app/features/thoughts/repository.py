"""Thoughts in the store (cypher/thought): writing one with its change event, loading
originals in bulk, and reading them by id, a page of a listing, nearest by vector, by
full-text, and with their embeddings. The executor prepares a namespace's schema before
its first write."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from thoughtgraph.domain.models import (
    PageCursor,
    ScoredThought,
    Thought,
    ThoughtFilter,
    ThoughtKind,
    ThoughtPage,
    ThoughtRecord,
    TimeView,
)
from thoughtgraph.domain.procedures import searched_kinds
from thoughtgraph.domain.retrieval import SearchFilter, UsagePolicy
from thoughtgraph.store.executor import Executor, vector_list
from thoughtgraph.store.fulltext import whole_value_query
from thoughtgraph.store.params import filter_params, thought_create_params, view_params
from thoughtgraph.store.rows import candidate_rows, thought_from_row


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


class ThoughtRepository:
    def __init__(self, executor: Executor, *, oversample: int, min_candidates: int) -> None:
        self._x = executor
        self._oversample = oversample
        self._min_candidates = min_candidates

    async def create(self, record: ThoughtRecord, *, event_id: str, event_kind: str) -> int | None:
        """Write a thought, its lineage edges and its change event in one statement; the
        revision it was written at (None when the id existed already)."""
        rows = await self._x.write(
            "thought.create",
            thought_create_params(record, event_id=event_id, event_kind=event_kind),
            namespace=record.thought.namespace,
        )
        return int(rows[0]["revision"]) if rows else None

    async def bulk_create_originals(
        self, namespace: str, thoughts: Sequence[SyntheticThought]
    ) -> int:
        """Load original thoughts with their embeddings in one statement; how many were new."""
        if not thoughts:
            return 0
        rows = [
            {
                "id": t.id,
                "content": t.content,
                "agentId": t.agent_id,
                "agentName": t.agent_name,
                "tags": list(t.tags),
                "createdAt": t.created_at_ms,
                "embedding": list(t.embedding),
            }
            for t in thoughts
        ]
        result = await self._x.write(
            "thought.bulk_create_originals",
            {"namespace": namespace, "rows": rows},
            namespace=namespace,
        )
        return int(result[0]["created"]) if result else 0

    async def get_many(self, namespace: str, ids: Sequence[str]) -> dict[str, Thought]:
        if not ids:
            return {}
        rows = await self._x.read(
            "thought.get_many", {"namespace": namespace, "ids": list(ids)}, namespace=namespace
        )
        return {row["id"]: thought_from_row(row) for row in rows}

    async def page(
        self,
        namespace: str,
        filter: ThoughtFilter,
        after: PageCursor | None,
        limit: int,
        view: TimeView | None = None,
    ) -> ThoughtPage:
        """Newest first after the cursor, through the statement an index narrows best."""
        rows = await self._x.read(
            _listing_statement(filter),
            {
                "namespace": namespace,
                **view_params(view),
                "type": filter.type.value if filter.type else None,
                "kind": filter.kind.value if filter.kind else None,
                "topicId": filter.topic_id,
                "tag": filter.tag,
                "tagQuery": whole_value_query(filter.tag) if filter.tag else None,
                "agentId": filter.agent_id,
                "afterCreatedAt": after.created_at_ms if after else None,
                "afterId": after.thought_id if after else None,
                "limit": limit + 1,  # one extra row tells whether another page exists
            },
            namespace=namespace,
        )
        thoughts = tuple(thought_from_row(row) for row in rows[:limit])
        return ThoughtPage(thoughts=thoughts, has_next_page=len(rows) > limit)

    async def nearest(
        self,
        namespace: str,
        embedding: Sequence[float],
        k: int,
        min_similarity: float,
        view: TimeView | None = None,
    ) -> list[ScoredThought]:
        if not await self._x.searchable(namespace):
            return []
        # The one vector search of thoughts, with no filter beyond the view (procedural
        # kinds, which no default search returns, left out: domain/procedures.py).
        rows = await self._x.read(
            "search.vector_thoughts",
            {
                "namespace": namespace,
                **view_params(view),
                **filter_params(SearchFilter(), None, UsagePolicy(), kinds=searched_kinds((), ())),
                "embedding": list(embedding),
                "candidates": max(k * self._oversample, self._min_candidates),
                "rowLimit": k + 1,
            },
            namespace=namespace,
        )
        hits = [
            ScoredThought(
                thought=thought_from_row(row), similarity=self._x.similarity(float(row["rawScore"]))
            )
            for row in candidate_rows(rows)[:k]
        ]
        return [hit for hit in hits if hit.similarity >= min_similarity]

    async def raw_nearest_ids(
        self, namespace: str, embedding: Sequence[float], k: int
    ) -> list[str]:
        """The engine's index query alone, no filter, no projection (the benchmark's
        baseline)."""
        if not await self._x.searchable(namespace):
            return []
        rows = await self._x.read(
            "thought.raw_vector_query",
            {"embedding": list(embedding), "candidates": k},
            namespace=namespace,
        )
        return [row["id"] for row in rows]

    async def fulltext(
        self, namespace: str, query: str, k: int, view: TimeView | None = None
    ) -> list[ScoredThought]:
        rows = await self._x.read(
            "thought.fulltext_search",
            {"namespace": namespace, "query": query, "limit": k, **view_params(view)},
            namespace=namespace,
        )
        return [
            ScoredThought(thought=thought_from_row(row), similarity=float(row["rawScore"]))
            for row in rows
        ]

    async def close_pairs(
        self, namespace: str, ids: Sequence[str], cosine: float
    ) -> set[frozenset[str]]:
        """The pairs of current thoughts among ``ids`` whose embeddings' cosine is at least
        ``cosine`` (computed in the engine: the vectors stay there)."""
        if len(ids) < 2:
            return set()
        rows = await self._x.read(
            "thought.close_pairs",
            {"namespace": namespace, "ids": list(ids), "cosine": cosine},
            namespace=namespace,
        )
        return {frozenset((r["leftId"], r["rightId"])) for r in rows}

    async def with_embeddings(
        self, namespace: str, ids: Sequence[str]
    ) -> list[tuple[Thought, list[float]]]:
        if not ids:
            return []
        rows = await self._x.read(
            "thought.with_embeddings",
            {"namespace": namespace, "ids": list(ids)},
            namespace=namespace,
        )
        return [(thought_from_row(r), vector_list(r["embedding"])) for r in rows]


def _listing_statement(filter: ThoughtFilter) -> str:
    """The list statement an index narrows best for ``filter`` (cypher/thought/list*)."""
    if filter.kind is not None and filter.kind is not ThoughtKind.FACT:
        return "thought.list_of_kind"
    if filter.tag:  # an empty tag has no index entry; thought.list reads it as given
        return "thought.list_tagged"
    return "thought.list"
