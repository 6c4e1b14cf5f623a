"""Reading thoughts: one by id, a filtered page, lineage-aware semantic search, and a
thought's related neighbours; lists and search take the same time view."""

from __future__ import annotations

from datetime import datetime

import strawberry

from thoughtgraph.api.graphql.request_context import Info
from thoughtgraph.api.graphql.search.explain import RetrievalMode
from thoughtgraph.api.graphql.thoughts.inputs import (
    SearchFilterInput,
    ThoughtFilterInput,
    optional_ms,
)
from thoughtgraph.api.graphql.thoughts.types import (
    RelatedThought,
    SearchHit,
    Thought,
    ThoughtConnection,
    load_thoughts,
)
from thoughtgraph.domain import validation as check
from thoughtgraph.domain.models import DEFAULT_NAMESPACE, TimeView
from thoughtgraph.domain.retrieval import DEFAULT_RELATED_FIRST, DEFAULT_SEARCH_K

# Nullable arguments with defaults: an explicit null means the default.
PAGE_SIZE = check.DEFAULT_PAGE_SIZE  # shown in the schema; an explicit null means it too
SEARCH_K = DEFAULT_SEARCH_K
RELATED_FIRST = DEFAULT_RELATED_FIRST


def time_view(
    info: Info, current_only: bool | None, valid_at: datetime | None, known_at: datetime | None
) -> TimeView | None:
    """The view the arguments ask for; None for the default (active, valid now), which
    the services and the store build themselves."""
    if not current_only and valid_at is None and known_at is None:
        return None
    return info.context.services.search.view(
        current_only=bool(current_only),
        valid_at_ms=optional_ms(valid_at),
        known_at_ms=optional_ms(known_at),
    )


async def resolve_thought(
    info: Info, id: strawberry.ID, namespace: str = DEFAULT_NAMESPACE
) -> Thought | None:
    found = await info.context.services.thoughts.get(namespace, id, caller=info.context.principal)
    if found is None:
        return None
    info.context.loaders.thoughts.prime((namespace, found.id), found)
    return Thought.from_domain(found)


async def resolve_thoughts(
    info: Info,
    namespace: str = DEFAULT_NAMESPACE,
    filter: ThoughtFilterInput | None = None,
    first: int | None = PAGE_SIZE,
    after: str | None = None,
    current_only: bool | None = False,
    valid_at: datetime | None = None,
    known_at: datetime | None = None,
) -> ThoughtConnection:
    criteria = (filter or ThoughtFilterInput()).to_domain()
    view = time_view(info, current_only, valid_at, known_at)
    page = await info.context.services.browse.page(
        namespace, criteria, first, after, view, caller=info.context.principal
    )
    return ThoughtConnection.from_page(page)


async def resolve_search(
    info: Info,
    query: str,
    k: int | None = SEARCH_K,
    threshold: float | None = 0.0,
    namespace: str = DEFAULT_NAMESPACE,
    current_only: bool | None = False,
    valid_at: datetime | None = None,
    known_at: datetime | None = None,
    filter: SearchFilterInput | None = None,
    mode: RetrievalMode | None = RetrievalMode.STANDARD,
    hybrid: bool | None = True,
    agent: str | None = None,
    expand: bool | None = None,
) -> list[SearchHit]:
    hits = await info.context.services.search.search_for(
        info.context.principal,
        namespace,
        query,
        agent=agent,
        k=k,
        threshold=threshold,
        view=time_view(info, current_only, valid_at, known_at),
        filter=filter.to_domain() if filter is not None else None,
        mode=mode,
        hybrid=hybrid,
        expand=expand,
    )
    return [SearchHit.from_domain(hit) for hit in hits]


async def resolve_related(
    info: Info,
    id: strawberry.ID,
    namespace: str = DEFAULT_NAMESPACE,
    first: int | None = RELATED_FIRST,
) -> list[RelatedThought]:
    related = await info.context.services.related.of(
        namespace, id, first, caller=info.context.principal
    )
    thoughts = await load_thoughts(info, namespace, [r.thought_id for r in related])
    by_id = {str(thought.id): thought for thought in thoughts}
    return [
        RelatedThought(thought=by_id[r.thought_id], strength=r.strength)
        for r in related
        if r.thought_id in by_id
    ]


@strawberry.type
class ThoughtQuery:
    thought = strawberry.field(
        resolver=resolve_thought,
        description="One thought, or null when the namespace has no such id.",
    )
    thoughts = strawberry.field(
        resolver=resolve_thoughts,
        description=(
            "Thoughts newest first, optionally filtered; `first` is 1 to 100. Forgotten"
            " thoughts are left out; the time view arguments work as in `search`."
        ),
    )
    search = strawberry.field(
        resolver=resolve_search,
        description=(
            "The k best thoughts for the query: full-text and vector candidates scored by"
            " cosine, a full-text bonus and the priors (hybrid: false for vector search"
            " only; the graph expansion, keyword sub-queries, session neighbours and people"
            " named, runs when the hits come from conversation sessions: expand: true"
            " always, false never), filtered in the"
            " store, in the retention"
            " tiers `mode` reaches (STANDARD: hot and warm); superseded ones are marked"
            " and ranked below their successors (left out with currentOnly); threshold"
            " drops hits less similar than it. validAt asks what was true then, knownAt"
            " what the service knew then. Each hit's `explain` gives its score's parts."
            " Only categories the reading agent's allowlist allows come back (`agent`:"
            " whom to read as when the API key names no agent)."
        ),
    )
    related = strawberry.field(
        resolver=resolve_related,
        description=(
            "Thoughts consolidation linked to this one as related, strongest first"
            " (`first` 1 to 100); THOUGHT_NOT_FOUND when it does not exist."
        ),
    )
