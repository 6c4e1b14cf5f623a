"""Filters written once for both engines, registered with the other macros in
app/store/cypher.py: a read's time view (``visible``), what maintenance works on
(``current``), a listing's cursor and optional filters (``listing``) and a consolidation
run's candidates (``consolidation_candidate``). Parameters are named in each docstring.
"""

from __future__ import annotations

from collections.abc import Callable


def _in_scope(engine: str, var: str) -> str:
    """In a scope the read's viewer sees: not private, or owned by $viewerId
    ($allScopes: a trusted read sees every scope; thoughtgraph.domain.scopes.Viewer)."""
    del engine
    t = var
    return f"($allScopes OR coalesce({t}.scope, 'shared') <> 'private' OR {t}.ownerId = $viewerId)"


def _visible(engine: str, var: str) -> str:
    """The time view of a read (thoughtgraph.domain.models.TimeView): active unless forgotten ones
    are asked for, valid at $validAt (default $now) in the world, known at $knownAt when
    given, not superseded when $currentOnly, and in_scope."""
    t = var
    return (
        f"{_in_scope(engine, t)} "
        f"AND (coalesce({t}.state, 'active') = 'active' OR $includeForgotten) "
        f"AND coalesce({t}.validFrom, {t}.createdAt) <= coalesce($validAt, $now) "
        f"AND ({t}.validTo IS NULL OR {t}.validTo > coalesce($validAt, $now)) "
        f"AND ($knownAt IS NULL OR ({t}.createdAt <= $knownAt "
        f"AND ({t}.supersededAt IS NULL OR {t}.supersededAt > $knownAt))) "
        f"AND (NOT $currentOnly OR {t}.supersededAt IS NULL)"
    )


def _listing(engine: str, var: str) -> str:
    """A listing's keyset cursor (the last (createdAt, id) seen; also a plain range on
    createdAt, so that Neo4j seeks its (namespace, createdAt) index), its optional filters
    (thoughtgraph.domain.models.ThoughtFilter) and the time view."""
    t = var
    return (
        f"{t}.createdAt <= coalesce($afterCreatedAt, 9223372036854775807) "
        f"AND ($afterCreatedAt IS NULL OR {t}.createdAt < $afterCreatedAt OR {t}.id < $afterId) "
        f"AND ($type IS NULL OR {t}.type = $type) "
        f"AND ($tag IS NULL OR $tag IN {t}.tags) "
        f"AND ($agentId IS NULL OR {t}.agentId = $agentId) "
        f"AND ($kind IS NULL OR coalesce({t}.kind, 'fact') = $kind) "
        f"AND ($topicId IS NULL OR {t}.topicId = $topicId) "
        f"AND {_visible(engine, t)}"
    )


def _current(engine: str, var: str) -> str:
    """Active and not superseded: what maintenance works on."""
    del engine
    return f"(coalesce({var}.state, 'active') = 'active' AND {var}.supersededAt IS NULL)"


def _consolidation_candidate(engine: str, var: str) -> str:
    """What a consolidation run or a scheduled scan looks at: written before
    $until, and new or used within the window ($since), important, or frequently
    retrieved ($minImportance and $minAccessCount: null when those do not count). The
    caller adds current()."""
    del engine
    t = var
    return (
        f"({t}.createdAt <= $until AND ({t}.createdAt >= $since "
        f"OR coalesce({t}.lastAccessedAt, 0) >= $since "
        f"OR ($minImportance IS NOT NULL AND coalesce({t}.importance, 3) >= $minImportance) "
        f"OR ($minAccessCount IS NOT NULL "
        f"AND coalesce({t}.accessCount, 0) >= $minAccessCount)))"
    )


FILTER_MACROS: dict[str, Callable[..., str]] = {
    "visible": _visible,
    "in_scope": _in_scope,
    "current": _current,
    "listing": _listing,
    "consolidation_candidate": _consolidation_candidate,
}
