"""Search with graph expansion (``RetrievalOptions(expand=True)``): the base search's pool
re-ranked by keyword sub-queries, session neighbours and the people a question names
(``expansion.py``), held to the search's own rules.

The expansion brings in thoughts the base search did not return (a turn next to the one
that matched, a keyword sub-query's hit). Each of those newcomers is admitted only when
the search's filters, allowlist, retention tiers and time view admit it (one statement,
``search.admitted``), and is marked and ranked down like any hit when it was refined or
superseded (an insight, like any hit, by ``insight_rank_factor``). It costs a few
statements and an embedding per content word of the question; its figures and the
command that measures them are in docs/design/search.md.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from thoughtgraph.domain.models import TimeView
from thoughtgraph.domain.ranking.retention import tier_of
from thoughtgraph.domain.ranking.scoring import kind_factor
from thoughtgraph.domain.retrieval import RankedHit, UsagePolicy
from thoughtgraph.domain.scopes import Viewer
from thoughtgraph.features.repositories import Repositories
from thoughtgraph.features.search.expansion import StoreExpansionReader, expand
from thoughtgraph.ports.services import Embeddings

# How many hits the base search hands the expansion (fixed, so a search for k returns the
# prefix of a search for more; the weights were chosen with this pool).
EXPANSION_POOL = 50
_EVERY = 1_000_000  # expand() ranks them all; admission decides what is left


def from_sessions(hits: Sequence[RankedHit]) -> bool:
    """Whether a search's hits come from conversations (some belong to a session): the
    default search expands them then (the session neighbours and the speakers the
    expansion reads are there); otherwise it leaves them as they are."""
    return any(hit.thought.session_id for hit in hits)


Lineage = Callable[[str, list[str], Viewer], Awaitable[tuple[dict[str, str], dict[str, str]]]]


class ExpandedSearch:
    def __init__(
        self,
        repos: Repositories,
        embedder: Embeddings,
        *,
        policy: UsagePolicy,
        superseded_factor: float,
        insight_factor: float,
    ) -> None:
        self._reader = StoreExpansionReader(repos)
        self._embedder = embedder
        self._retrieval = repos.retrieval
        self._policy = policy
        self._superseded_factor = superseded_factor
        self._insight_factor = insight_factor

    async def rerank(
        self,
        namespace: str,
        text: str,
        embedding: Sequence[float],
        pool: Sequence[RankedHit],
        k: int,
        *,
        threshold: float,
        view: TimeView,
        params: dict[str, Any],
        lineage: Lineage,
    ) -> list[RankedHit]:
        """The best ``k`` of the pool and its admitted newcomers, by the expanded score."""
        ranked = await expand(
            self._reader,
            self._embedder,
            namespace,
            text,
            pool,
            _EVERY,
            view=view,
            query_embedding=embedding,
        )
        base = {hit.thought.id: hit for hit in pool}
        newcomers = [
            h.thought.id for h in ranked if h.thought.id not in base and h.similarity >= threshold
        ]
        admitted = await self._retrieval.admitted(namespace, newcomers, view, params)
        newest, superseders = await lineage(namespace, list(admitted), view.viewer)
        hits: list[RankedHit] = []
        for hit in ranked:
            tid = hit.thought.id
            own = base.get(tid)
            if own is not None:  # its pool score carries its kind and supersession already
                hits.append(own.model_copy(update={"score": hit.score}))
                continue
            factor = kind_factor(hit.thought, self._insight_factor)
            if tid not in admitted or (view.current_only and tid in newest):
                continue
            by = superseders.get(tid) or hit.thought.superseded_by
            stale = tid in newest or by is not None
            retention = admitted[tid]
            hits.append(
                RankedHit(
                    thought=hit.thought,
                    similarity=max(0.0, hit.similarity),
                    score=hit.score * (self._superseded_factor if stale else 1.0) * factor,
                    refined_by=newest.get(tid),
                    superseded=stale,
                    superseded_by=by,
                    retention=min(1.0, retention),
                    tier=tier_of(retention, self._policy),
                )
            )
        hits.sort(key=lambda h: h.score, reverse=True)  # stable: the expansion's order on ties
        return hits[:k]
