"""Contributing thoughts: originals, refinements and consolidations."""

from __future__ import annotations

import strawberry

from thoughtgraph.api.graphql.request_context import Info
from thoughtgraph.api.graphql.thoughts.inputs import (
    ConsolidateInput,
    ContributeInput,
    ContributeManyInput,
    RefineInput,
)
from thoughtgraph.api.graphql.thoughts.payloads import ContributionPayload
from thoughtgraph.features.thoughts.service import MAX_BATCH


async def resolve_contribute(info: Info, input: ContributeInput) -> ContributionPayload:
    contribution = await info.context.services.thoughts.contribute(
        input.to_thought_input(),
        refines=input.refines,
        consolidates=input.consolidates,
        reason=input.reason,
        extract=input.extract,
        caller=info.context.principal,
    )
    return ContributionPayload.from_domain(contribution)


async def resolve_contribute_many(
    info: Info, inputs: list[ContributeManyInput]
) -> list[ContributionPayload]:
    batch = await info.context.services.thoughts.contribute_many(
        [item.to_thought_input() for item in inputs],
        caller=info.context.principal,
    )
    return [ContributionPayload.from_domain(c) for c in batch.contributions]


async def resolve_refine(info: Info, input: RefineInput) -> ContributionPayload:
    contribution = await info.context.services.thoughts.refine(
        input.to_thought_input(),
        input.source_id,
        reason=input.reason,
        caller=info.context.principal,
    )
    return ContributionPayload.from_domain(contribution)


async def resolve_consolidate(info: Info, input: ConsolidateInput) -> ContributionPayload:
    contribution = await info.context.services.thoughts.consolidate(
        input.to_thought_input(),
        input.source_ids,
        reason=input.reason,
        caller=info.context.principal,
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
    contribute_many = strawberry.mutation(
        resolver=resolve_contribute_many,
        description=(
            f"Store up to {MAX_BATCH} originals at once, in input order: all are checked"
            " before any is written (one bad item writes nothing, VALIDATION_ERROR), embedded"
            " in one batch and written together. No guidance is returned (null)."
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
