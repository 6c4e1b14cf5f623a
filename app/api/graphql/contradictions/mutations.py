"""Deciding a contradiction."""

from __future__ import annotations

import strawberry

from thoughtgraph.api.graphql.contradictions.types import Contradiction
from thoughtgraph.api.graphql.enums import Resolution
from thoughtgraph.api.graphql.request_context import Info
from thoughtgraph.domain.models import DEFAULT_NAMESPACE
from thoughtgraph.features.access import actor_of


async def resolve_resolve_contradiction(
    info: Info,
    id: strawberry.ID,
    resolution: Resolution,
    namespace: str = DEFAULT_NAMESPACE,
    note: str | None = None,
    merged_content: str | None = None,
) -> Contradiction:
    resolved = await info.context.services.contradictions.resolve(
        namespace,
        id,
        resolution,
        actor=actor_of(info.context.principal),
        note=note,
        merged_content=merged_content,
        caller=info.context.principal,
    )
    return Contradiction.from_domain(resolved)


@strawberry.type
class ContradictionMutation:
    resolve_contradiction = strawberry.mutation(
        resolver=resolve_resolve_contradiction,
        description=(
            "Decide a contradiction: A_WINS or B_WINS (the winner supersedes the other),"
            " MERGED (a consolidation of both, from mergedContent when given, supersedes"
            " them) or BOTH_VALID (the pair is not flagged again). Repeating the same"
            " decision is a no-op; a different one is INVALID_STATE; an unknown id NOT_FOUND."
        ),
    )
