"""Lineage-aware semantic search over thoughts, and search over the reasons of changes."""

from __future__ import annotations

from app.clock import Clock, SystemClock
from app.domain import validation as check
from app.domain.models import LineageEdgeHit, SearchHit, TimeView
from app.domain.rules import rank_with_lineage, rank_with_supersession
from app.services.ports import Embeddings
from app.services.retention import AccessRecorder
from app.settings import Settings
from app.store.cypher_store import CypherGraphStore


class SearchService:
    def __init__(
        self,
        store: CypherGraphStore,
        embedder: Embeddings,
        *,
        clock: Clock | None = None,
        access: AccessRecorder | None = None,
        settings: Settings | None = None,
    ) -> None:
        self._store = store
        self._embedder = embedder
        self._clock = clock or SystemClock()
        self._access = access
        self._superseded_factor = settings.superseded_rank_factor if settings else 0.5

    def view(
        self,
        *,
        current_only: bool = False,
        valid_at_ms: int | None = None,
        known_at_ms: int | None = None,
    ) -> TimeView:
        return TimeView(
            now_ms=self._clock.now_ms(),
            current_only=current_only,
            valid_at_ms=valid_at_ms,
            known_at_ms=known_at_ms,
        )

    async def search(
        self,
        namespace: str,
        query: str,
        *,
        k: int = 10,
        threshold: float = 0.0,
        view: TimeView | None = None,
    ) -> list[SearchHit]:
        """Top-k thoughts by meaning. Refined and superseded ones are marked and ranked
        below their successors; ``view.current_only`` leaves superseded ones out."""
        check.require_namespace(namespace)
        text = check.require_text("query", query, check.MAX_QUERY_CHARS)
        check.require_int_range("k", k, 1, check.MAX_K)
        check.require_float_range("threshold", threshold, -1.0, 1.0)
        view = view or self.view()
        embedding = await self._embedder.async_embed_query(text)
        hits = await self._store.vector_search(namespace, embedding, k, threshold, view)
        ids = [hit.thought.id for hit in hits]
        # One batched lookup of refiners for every hit, never one per hit.
        refiners = await self._store.refiners(namespace, ids)
        newest = {tid: found[0] for tid, found in refiners.items() if found}
        if view.current_only:  # a refined thought is not current either
            hits = [hit for hit in hits if hit.thought.id not in newest]
        superseders = await self._store.supersession.superseders(namespace, ids)
        ranked = rank_with_supersession(
            rank_with_lineage(hits, newest), superseders, self._superseded_factor
        )
        if self._access is not None:
            self._access.record(namespace, [hit.thought.id for hit in ranked])
        return ranked

    async def search_changes(
        self, namespace: str, query: str, *, k: int = 10
    ) -> list[LineageEdgeHit]:
        """REFINES/CONSOLIDATES/SUPERSEDES edges whose reason is closest to the query."""
        check.require_namespace(namespace)
        text = check.require_text("query", query, check.MAX_QUERY_CHARS)
        check.require_int_range("k", k, 1, check.MAX_K)
        embedding = await self._embedder.async_embed_query(text)
        return await self._store.search_lineage_edges(namespace, embedding, k)
