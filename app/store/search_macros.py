"""Macros of the search statements (cypher/search/), written once for both engines and
registered with the others in app/store/cypher.py.

``search_filter(t)`` is every filter of a search (thoughtgraph.domain.retrieval.SearchFilter and the
retrieval mode's lowest retention), so both candidate lists, vector and full-text, are
narrowed inside the engine by the same text. ``retention(t)`` is the retention score of
app/domain/ranking/retention.py before its cap at 1 (the cap cannot change a comparison with a
threshold at or below 1). Parameters: see app/features/search/repository.py.
"""

from __future__ import annotations

from collections.abc import Callable

from thoughtgraph.domain.units import DAY_MS


def _retention(engine: str, var: str) -> str:
    del engine
    t = var
    return (
        f"(CASE WHEN coalesce({t}.pinned, false) THEN 1.0 ELSE "
        f"0.5 ^ (($now - coalesce({t}.lastAccessedAt, {t}.createdAt)) / {DAY_MS}.0 "
        "/ $halfLifeDays) "
        f"* (1.0 + $activationBoost * (coalesce({t}.accessCount, 0) "
        f"+ $citeWeight * coalesce({t}.citeCount, 0))) "
        f"/ (1.0 + $ignorePenalty * coalesce({t}.ignoreCount, 0)) END)"
    )


def _search_filter(engine: str, var: str) -> str:
    t = var
    return (
        f"($kinds IS NULL OR coalesce({t}.kind, 'fact') IN $kinds) "
        f"AND ($categories IS NULL OR {t}.category IN $categories) "
        f"AND ($tags IS NULL OR all(tag IN $tags WHERE tag IN coalesce({t}.tags, []))) "
        f"AND ($agentId IS NULL OR {t}.agentId = $agentId) "
        f"AND ($importanceMin IS NULL OR coalesce({t}.importance, 3) >= $importanceMin) "
        f"AND ($importanceMax IS NULL OR coalesce({t}.importance, 3) <= $importanceMax) "
        f"AND ($pinned IS NULL OR coalesce({t}.pinned, false) = $pinned) "
        f"AND ($updatedAfter IS NULL OR {t}.createdAt >= $updatedAfter) "
        f"AND ($updatedBefore IS NULL OR {t}.createdAt < $updatedBefore) "
        f"AND ($states IS NULL OR coalesce({t}.state, 'active') IN $states) "
        f"AND ($minRetention IS NULL OR {_retention(engine, t)} >= $minRetention)"
    )


def _cosine(engine: str, stored: str, query: str) -> str:
    """Cosine similarity in [-1, 1] of a stored vector and a query parameter: Neo4j's
    function answers (1 + cos) / 2, FalkorDB's the distance 1 - cos."""
    if engine == "falkordb":
        return f"(1.0 - vec.cosineDistance({stored}, vecf32({query})))"
    return f"(2.0 * vector.similarity.cosine({stored}, {query}) - 1.0)"


def _stored_cosine(engine: str, left: str, right: str) -> str:
    """Cosine similarity in [-1, 1] of two stored vectors."""
    if engine == "falkordb":
        return f"(1.0 - vec.cosineDistance({left}, {right}))"
    return f"(2.0 * vector.similarity.cosine({left}, {right}) - 1.0)"


SEARCH_MACROS: dict[str, Callable[..., str]] = {
    "retention": _retention,
    "search_filter": _search_filter,
    "cosine": _cosine,
    "stored_cosine": _stored_cosine,
}
