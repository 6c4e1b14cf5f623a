"""Contributing thoughts: originals, refinements and consolidations (seed 000)."""

from __future__ import annotations

import strawberry

from app.graphql.context import Info
from app.graphql.thoughts.inputs import ConsolidateInput, ContributeInput, RefineInput
from app.graphql.thoughts.types import ContributionPayload


async def resolve_contribute(info: Info, input: ContributeInput) -> ContributionPayload:
    contribution = await info.context.services.thoughts.contribute(
        input.to_thought_input(),
        refines=input.refines,
        consolidates=input.consolidates,
        reason=input.reason,
    )
    return ContributionPayload.from_domain(contribution)


async def resolve_refine(info: Info, input: RefineInput) -> ContributionPayload:
    contribution = await info.context.services.thoughts.refine(
        input.to_thought_input(), input.source_id, reason=input.reason
    )
    return ContributionPayload.from_domain(contribution)


async def resolve_consolidate(info: Info, input: ConsolidateInput) -> ContributionPayload:
    contribution = await info.context.services.thoughts.consolidate(
        input.to_thought_input(), input.source_ids, reason=input.reason
    )
    return ContributionPayload.from_domain(contribution)


@strawberry.type
class ThoughtMutation:
    contribute = strawberry.mutation(
        resolver=resolve_contribute,
        description=(
            "Store a thought; with `refines` or `consolidates` it becomes a refinement or"
            " a consolidation (giving both is MUTUAL_EXCLUSION)."
        ),
    )
    refine = strawberry.mutation(
        resolver=resolve_refine,
        description="Store a thought that refines (supersedes) `sourceId`.",
    )
    consolidate = strawberry.mutation(
        resolver=resolve_consolidate,
        description="Store a thought that consolidates `sourceIds` (2 or more).",
    )
