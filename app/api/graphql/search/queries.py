"""Two-tier search: topic summaries, then thoughts, from one query."""

from __future__ import annotations

from datetime import datetime

import strawberry

from thoughtgraph.api.graphql.request_context import Info
from thoughtgraph.api.graphql.search.explain import DetailLevel, RetrievalMode
from thoughtgraph.api.graphql.search.types import TieredSearch
from thoughtgraph.api.graphql.thoughts.inputs import SearchFilterInput
from thoughtgraph.api.graphql.thoughts.queries import time_view
from thoughtgraph.domain.models import DEFAULT_NAMESPACE
from thoughtgraph.domain.retrieval import DEFAULT_TIERED_K, DEFAULT_TOPIC_LIMIT

TIERED_LIMIT = DEFAULT_TIERED_K


async def resolve_search_tiered(
    info: Info,
    query: str,
    namespace: str = DEFAULT_NAMESPACE,
    limit: int | None = TIERED_LIMIT,
    topic_limit: int | None = DEFAULT_TOPIC_LIMIT,
    detail_level: DetailLevel | None = DetailLevel.FULL,
    threshold: float | None = 0.0,
    current_only: bool | None = False,
    valid_at: datetime | None = None,
    known_at: datetime | None = None,
    filter: SearchFilterInput | None = None,
    mode: RetrievalMode | None = RetrievalMode.STANDARD,
    agent: str | None = None,
) -> TieredSearch:
    result = await info.context.services.search.search_tiered_for(
        info.context.principal,
        namespace,
        query,
        agent=agent,
        limit=limit,
        topic_limit=topic_limit,
        detail_level=detail_level,
        threshold=threshold,
        view=time_view(info, current_only, valid_at, known_at),
        filter=filter.to_domain() if filter is not None else None,
        mode=mode,
    )
    return TieredSearch.from_domain(result)


@strawberry.type
class SearchQuery:
    search_tiered = strawberry.field(
        resolver=resolve_search_tiered,
        description=(
            "Seed 004's two-tier search: up to topicLimit (0-10, default 3) summarised"
            " topics nearest the query, then (detailLevel FULL) up to limit (1-25, default"
            " 7) thoughts of a search with the same filters and mode as `search`."
        ),
    )
