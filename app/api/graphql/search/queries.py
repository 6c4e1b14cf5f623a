"""Two-tier search (seed 004): topic summaries, then thoughts, from one query."""

from __future__ import annotations

from datetime import datetime

import strawberry

from thoughtgraph.api.graphql.allowlist import readable_categories
from thoughtgraph.api.graphql.auth import CanRead
from thoughtgraph.api.graphql.request_context import Info
from thoughtgraph.api.graphql.search.explain import DetailLevel, RetrievalMode
from thoughtgraph.api.graphql.search.types import TieredSearch
from thoughtgraph.api.graphql.thoughts.inputs import SearchFilterInput
from thoughtgraph.api.graphql.thoughts.queries import retrieval_options, time_view
from thoughtgraph.domain import validation as check
from thoughtgraph.domain.models import DEFAULT_NAMESPACE
from thoughtgraph.domain.retrieval import DEFAULT_TOPIC_LIMIT, MAX_LIMIT, TieredResult

TIERED_LIMIT = 7  # seed 004: 3 summaries + 7 thoughts
MAX_TOPIC_LIMIT = 10


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
    size = TIERED_LIMIT if limit is None else limit
    check.require_int_range("limit", size, 1, MAX_LIMIT)
    topics = DEFAULT_TOPIC_LIMIT if topic_limit is None else topic_limit
    check.require_int_range("topicLimit", topics, 0, MAX_TOPIC_LIMIT)
    options = retrieval_options(info, filter, mode, True, agent)
    if options is None:
        empty = TieredResult(topics=(), thoughts=(), detail_level=detail_level or DetailLevel.FULL)
        return TieredSearch.from_domain(empty)
    if readable_categories(info, agent) is not None:
        # A topic's summary draws on thoughts of any category: not for restricted agents.
        topics = 0
    result = await info.context.services.search.search_tiered(
        namespace,
        query,
        k=size,
        topic_k=topics,
        detail_level=detail_level or DetailLevel.FULL,
        threshold=0.0 if threshold is None else threshold,
        view=time_view(info, current_only, valid_at, known_at),
        options=options,
    )
    return TieredSearch.from_domain(result)


@strawberry.type
class SearchQuery:
    search_tiered = strawberry.field(
        permission_classes=[CanRead],
        resolver=resolve_search_tiered,
        description=(
            "Seed 004's two-tier search: up to topicLimit (0-10, default 3) summarised"
            " topics nearest the query, then (detailLevel FULL) up to limit (1-25, default"
            " 7) thoughts of a search with the same filters and mode as `search`."
        ),
    )
