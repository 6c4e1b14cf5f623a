"""Checking a search's options (each error names its field) and the usage policy from
settings."""

from __future__ import annotations

from thoughtgraph.domain import validation as check
from thoughtgraph.domain.errors import InvalidInputError
from thoughtgraph.domain.retrieval import RetrievalMode, RetrievalOptions, SearchFilter, UsagePolicy
from thoughtgraph.settings import Settings

MAX_FILTER_VALUES = 20  # kinds, categories, tags, states: each at most this many


def usage_policy(settings: Settings | None) -> UsagePolicy:
    if settings is None:
        return UsagePolicy()
    return UsagePolicy(
        half_life_days=settings.retention_half_life_days,
        activation_boost=settings.retention_activation_boost,
        cite_weight=settings.retention_cite_weight,
        ignore_penalty=settings.retention_ignore_penalty,
        hot_threshold=settings.retention_hot_threshold,
        warm_threshold=settings.retention_warm_threshold,
        cold_threshold=settings.retention_cold_threshold,
    )


def _at_most(field: str, values: tuple[object, ...]) -> None:
    if len(values) > MAX_FILTER_VALUES:
        raise InvalidInputError(
            f"{field} takes at most {MAX_FILTER_VALUES} values, got {len(values)}", field=field
        )


def checked_filter(f: SearchFilter) -> SearchFilter:
    for name in ("kinds", "categories", "tags", "states"):
        _at_most(f"filter.{name}", getattr(f, name))
    for bound in ("importance_min", "importance_max"):
        value = getattr(f, bound)
        if value is not None:
            check.require_int_range(f"filter.{bound}", value, 1, 5)
    if (
        f.importance_min is not None
        and f.importance_max is not None
        and f.importance_min > f.importance_max
    ):
        raise InvalidInputError(
            "filter.importanceMin is above filter.importanceMax", field="filter.importanceMin"
        )
    return f.model_copy(
        update={
            "tags": tuple(check.require_tag("filter.tags", t) for t in f.tags),
            "categories": tuple(check.require_name("filter.categories", c) for c in f.categories),
            "agent_id": (
                check.require_identifier("filter.agentId", f.agent_id)
                if f.agent_id is not None
                else None
            ),
        }
    )


def checked_options(given: RetrievalOptions | None) -> RetrievalOptions:
    options = given or RetrievalOptions()
    return options.model_copy(update={"filter": checked_filter(options.filter)})


def within_allowlist(
    options: RetrievalOptions, allowed: frozenset[str] | None
) -> RetrievalOptions | None:
    """The options narrowed to the categories an agent's allowlist lets it read (None:
    unrestricted), applied in the store like any category filter; None when nothing is
    left to read. Thoughts without a category are in no allowlist."""
    if allowed is None:
        return options
    asked = options.filter.categories
    categories = tuple(c for c in asked if c in allowed) if asked else tuple(sorted(allowed))
    if not categories:
        return None
    narrowed = options.filter.model_copy(update={"categories": categories})
    return options.model_copy(update={"filter": narrowed})


def caller_options(
    filter: SearchFilter | None,
    mode: RetrievalMode | None,
    hybrid: bool | None,
    expand: bool | None,
) -> RetrievalOptions:
    """A caller's options: hybrid unless asked off; the expansion when asked for, never
    when asked off, and left out (None) for hits from conversation sessions."""
    return RetrievalOptions(
        filter=filter or SearchFilter(),
        mode=mode or RetrievalMode.STANDARD,
        hybrid=hybrid is not False,
        expand=expand,
    )


def checked_query(namespace: str, query: str, k: int, threshold: float) -> str:
    """The query text, once namespace, query, k and threshold are valid."""
    check.require_namespace(namespace)
    text = check.require_text("query", query, check.MAX_QUERY_CHARS)
    check.require_int_range("k", k, 1, check.MAX_K)
    check.require_float_range("threshold", threshold, -1.0, 1.0)
    return text
