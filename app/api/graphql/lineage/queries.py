"""Tracing lineage and searching changes by why they were made."""

from __future__ import annotations

import strawberry

from thoughtgraph.api.graphql.lineage.types import ChangeHit, LineageResult
from thoughtgraph.api.graphql.request_context import Info
from thoughtgraph.domain.models import DEFAULT_NAMESPACE
from thoughtgraph.domain.retrieval import DEFAULT_SEARCH_K
from thoughtgraph.domain.validation import MAX_LINEAGE_DEPTH

SEARCH_K = DEFAULT_SEARCH_K  # shown in the schema; the service applies it


async def resolve_lineage(
    info: Info,
    id: strawberry.ID,
    max_depth: int | None = MAX_LINEAGE_DEPTH,
    namespace: str = DEFAULT_NAMESPACE,
) -> LineageResult:
    depth = MAX_LINEAGE_DEPTH if max_depth is None else max_depth
    lineage = await info.context.services.lineage.lineage(
        namespace, id, depth, caller=info.context.principal
    )
    return LineageResult.from_domain(lineage)


async def resolve_search_changes(
    info: Info, query: str, k: int | None = SEARCH_K, namespace: str = DEFAULT_NAMESPACE
) -> list[ChangeHit]:
    hits = await info.context.services.search.search_changes(
        namespace, query, k=k, caller=info.context.principal
    )
    return [ChangeHit.from_domain(hit, namespace) for hit in hits]


@strawberry.type
class LineageQuery:
    lineage = strawberry.field(
        resolver=resolve_lineage,
        description=(
            "Sources (negative depths) and refinements (positive depths) of a thought,"
            " maxDepth 1 to 10; THOUGHT_NOT_FOUND when it does not exist."
        ),
    )
    search_changes = strawberry.field(
        resolver=resolve_search_changes,
        description="Refinements and consolidations whose reason best matches the query.",
    )
