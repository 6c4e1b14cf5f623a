"""Reading thoughts: one by id, a filtered page, and lineage-aware semantic search."""

from __future__ import annotations

import strawberry

from app.domain.models import DEFAULT_NAMESPACE
from app.graphql.auth import CanRead
from app.graphql.context import Info
from app.graphql.thoughts.inputs import ThoughtFilterInput
from app.graphql.thoughts.types import SearchHit, Thought, ThoughtConnection

# Nullable arguments with defaults: an explicit null means the default.
PAGE_SIZE = 20
SEARCH_K = 10


async def resolve_thought(
    info: Info, id: strawberry.ID, namespace: str = DEFAULT_NAMESPACE
) -> Thought | None:
    found = await info.context.services.thoughts.get(namespace, id)
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
) -> ThoughtConnection:
    criteria = (filter or ThoughtFilterInput()).to_domain()
    size = PAGE_SIZE if first is None else first
    page = await info.context.services.browse.list(namespace, criteria, size, after)
    return ThoughtConnection.from_page(page)


async def resolve_search(
    info: Info,
    query: str,
    k: int | None = SEARCH_K,
    threshold: float | None = 0.0,
    namespace: str = DEFAULT_NAMESPACE,
) -> list[SearchHit]:
    hits = await info.context.services.search.search(
        namespace,
        query,
        k=SEARCH_K if k is None else k,
        threshold=0.0 if threshold is None else threshold,
    )
    return [SearchHit.from_domain(hit) for hit in hits]


@strawberry.type
class ThoughtQuery:
    thought = strawberry.field(
        permission_classes=[CanRead],
        resolver=resolve_thought,
        description="One thought, or null when the namespace has no such id.",
    )
    thoughts = strawberry.field(
        permission_classes=[CanRead],
        resolver=resolve_thoughts,
        description="Thoughts newest first, optionally filtered; `first` is 1 to 100.",
    )
    search = strawberry.field(
        permission_classes=[CanRead],
        resolver=resolve_search,
        description=(
            "The k thoughts closest in meaning to the query; superseded ones are marked"
            " and ranked below their refinements."
        ),
    )
