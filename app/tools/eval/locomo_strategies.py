"""The retrieval strategies ``thoughtgraph eval locomo`` compares, one class each behind
one small protocol (as neo4j-graphrag's retrievers): a strategy answers a query in a
namespace with its ranked hits. Every strategy is asked for the same ``k``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from thoughtgraph.domain.models import SearchHit, TimeView
from thoughtgraph.domain.retrieval import RetrievalMode, RetrievalOptions
from thoughtgraph.features.repositories import Repositories
from thoughtgraph.features.search.expansion import ExpansionWeights, StoreExpansionReader, expand
from thoughtgraph.features.search.service import SearchService
from thoughtgraph.ports.services import Embeddings

# No similarity floor: every strategy returns its full k.
NO_THRESHOLD = -1.0
# How many hits the base search hands the expansion step (fixed, so the top k of one
# run are the same as a run asked for k: the eval takes prefixes of the largest k).
EXPANSION_POOL = 50
# The conversations are years old: every tier (their retention decayed long ago), and no
# usage counted, so asking never changes what the next question finds.
HYBRID = RetrievalOptions(mode=RetrievalMode.EXHAUSTIVE, hybrid=True, record_access=False)
FULL = HYBRID.model_copy(update={"expand": True})


class Retriever(Protocol):
    name: str

    async def search(self, namespace: str, query: str, k: int) -> list[SearchHit]: ...


class VectorRetriever:
    """Plain vector search: the store's nearest thoughts, nothing else."""

    name = "vector"

    def __init__(
        self, repos: Repositories, embedder: Embeddings, view: Callable[[], TimeView]
    ) -> None:
        self._repos, self._embedder, self._view = repos, embedder, view

    async def search(self, namespace: str, query: str, k: int) -> list[SearchHit]:
        embedding = await self._embedder.async_embed_query(query)
        found = await self._repos.thoughts.nearest(
            namespace, embedding, k, NO_THRESHOLD, self._view()
        )
        return [
            SearchHit(thought=h.thought, similarity=h.similarity, score=h.similarity) for h in found
        ]


class ServiceRetriever:
    """The search service (``services.search.search``) with the given options: its
    default hybrid search, or the full retrieval (hybrid and the graph expansion)."""

    def __init__(
        self,
        name: str,
        search: SearchService,
        view: Callable[[], TimeView],
        options: RetrievalOptions,
    ) -> None:
        self.name, self._search, self._view, self._options = name, search, view, options

    async def search(self, namespace: str, query: str, k: int) -> list[SearchHit]:
        found = await self._search.search(
            namespace, query, k=k, threshold=NO_THRESHOLD, view=self._view(), options=self._options
        )
        return list(found)


class ExpandedRetriever:
    """A base strategy's pool re-ranked by the graph expansion step."""

    def __init__(
        self,
        base: Retriever,
        reader: StoreExpansionReader,
        embedder: Embeddings,
        view: Callable[[], TimeView],
        *,
        weights: ExpansionWeights | None = None,
        pool: int = EXPANSION_POOL,
    ) -> None:
        self.name = f"{base.name}+expansion"
        self._base, self._reader, self._embedder, self._view = base, reader, embedder, view
        self._weights = weights or ExpansionWeights()
        self._pool = pool

    async def search(self, namespace: str, query: str, k: int) -> list[SearchHit]:
        hits = await self._base.search(namespace, query, max(k, self._pool))
        return await expand(
            self._reader,
            self._embedder,
            namespace,
            query,
            hits,
            k,
            weights=self._weights,
            view=self._view(),
        )
