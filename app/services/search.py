"""Lineage-aware semantic search over thoughts, and search over the reasons of changes."""

from __future__ import annotations

from app.domain import validation as check
from app.domain.models import LineageEdgeHit, SearchHit
from app.domain.rules import rank_with_lineage
from app.services.ports import Embeddings
from app.store.interface import GraphStore


class SearchService:
    def __init__(self, store: GraphStore, embedder: Embeddings) -> None:
        self._store = store
        self._embedder = embedder

    async def search(
        self, namespace: str, query: str, *, k: int = 10, threshold: float = 0.0
    ) -> list[SearchHit]:
        """Top-k thoughts by meaning; superseded ones marked and ranked below their successors."""
        check.require_namespace(namespace)
        text = check.require_text("query", query, check.MAX_QUERY_CHARS)
        check.require_int_range("k", k, 1, check.MAX_K)
        check.require_float_range("threshold", threshold, -1.0, 1.0)
        embedding = await self._embedder.async_embed_query(text)
        hits = await self._store.vector_search(namespace, embedding, k, threshold)
        # One batched lookup of refiners for every hit, never one per hit.
        refiners = await self._store.refiners(namespace, [hit.thought.id for hit in hits])
        newest = {tid: ids[0] for tid, ids in refiners.items() if ids}
        return rank_with_lineage(hits, newest)

    async def search_changes(
        self, namespace: str, query: str, *, k: int = 10
    ) -> list[LineageEdgeHit]:
        """REFINES/CONSOLIDATES edges whose reason is closest in meaning to the query."""
        check.require_namespace(namespace)
        text = check.require_text("query", query, check.MAX_QUERY_CHARS)
        check.require_int_range("k", k, 1, check.MAX_K)
        embedding = await self._embedder.async_embed_query(text)
        return await self._store.search_lineage_edges(namespace, embedding, k)
