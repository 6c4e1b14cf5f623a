"""Reading contradictions: the newest, optionally of one status, or one by id."""

from __future__ import annotations

import strawberry

from thoughtgraph.api.graphql.contradictions.types import Contradiction
from thoughtgraph.api.graphql.enums import ContradictionStatus
from thoughtgraph.api.graphql.request_context import Info
from thoughtgraph.domain import validation as check
from thoughtgraph.domain.models import DEFAULT_NAMESPACE

PAGE_SIZE = check.DEFAULT_PAGE_SIZE  # shown in the schema; an explicit null means it too


async def resolve_contradictions(
    info: Info,
    namespace: str = DEFAULT_NAMESPACE,
    status: ContradictionStatus | None = None,
    first: int | None = PAGE_SIZE,
) -> list[Contradiction]:
    found = await info.context.services.contradictions.by_status(
        namespace, status, first, caller=info.context.principal
    )
    return [Contradiction.from_domain(item) for item in found]


async def resolve_contradiction(
    info: Info, id: strawberry.ID, namespace: str = DEFAULT_NAMESPACE
) -> Contradiction | None:
    found = await info.context.services.contradictions.get(
        namespace, id, caller=info.context.principal
    )
    return Contradiction.from_domain(found) if found is not None else None


@strawberry.type
class ContradictionQuery:
    contradictions = strawberry.field(
        resolver=resolve_contradictions,
        description="Contradictions, newest first, of any status unless one is given.",
    )
    contradiction = strawberry.field(
        resolver=resolve_contradiction,
        description="One contradiction, or null when the namespace has no such id.",
    )
