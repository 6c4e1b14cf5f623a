"""Contributing thoughts: originals, refinements and consolidations."""

from __future__ import annotations

from dataclasses import replace

import strawberry

from thoughtgraph.api.graphql.auth import CanWrite
from thoughtgraph.api.graphql.request_context import Info
from thoughtgraph.api.graphql.thoughts.inputs import (
    ConsolidateInput,
    ContributeInput,
    ContributeManyInput,
    RefineInput,
)
from thoughtgraph.api.graphql.thoughts.types import ContributionPayload
from thoughtgraph.domain.changes import Actor
from thoughtgraph.features.thoughts.service import MAX_BATCH, ThoughtInput

# Who the change log names for a write without an API key (open local mode): the
# maintenance mutations carry no agentId of their own to take instead.
LOCAL_ACTOR = Actor(id="local", name="local")


def as_caller(info: Info, data: ThoughtInput) -> ThoughtInput:
    """A write through an API key is the key's agent's, and the change log names the key;
    the agentId and agentName the input carries count only in open local mode."""
    principal = info.context.principal
    if principal.key_id is None or principal.agent_id is None:
        return data
    return replace(
        data,
        agent_id=principal.agent_id,
        agent_name=principal.agent_name or principal.agent_id,
        key_id=principal.key_id,
    )


def caller_actor(info: Info) -> Actor:
    """The actor of a write other than a contribution: the key's agent, and the key."""
    principal = info.context.principal
    if principal.agent_id is None:
        return LOCAL_ACTOR.model_copy(update={"key_id": principal.key_id})
    return Actor(
        id=principal.agent_id,
        name=principal.agent_name or principal.agent_id,
        key_id=principal.key_id,
    )


async def resolve_contribute(info: Info, input: ContributeInput) -> ContributionPayload:
    contribution = await info.context.services.thoughts.contribute(
        as_caller(info, input.to_thought_input()),
        refines=input.refines,
        consolidates=input.consolidates,
        reason=input.reason,
    )
    return ContributionPayload.from_domain(contribution)


async def resolve_contribute_many(
    info: Info, inputs: list[ContributeManyInput]
) -> list[ContributionPayload]:
    batch = await info.context.services.thoughts.contribute_many(
        [as_caller(info, item.to_thought_input()) for item in inputs]
    )
    return [ContributionPayload.from_domain(c) for c in batch.contributions]


async def resolve_refine(info: Info, input: RefineInput) -> ContributionPayload:
    contribution = await info.context.services.thoughts.refine(
        as_caller(info, input.to_thought_input()), input.source_id, reason=input.reason
    )
    return ContributionPayload.from_domain(contribution)


async def resolve_consolidate(info: Info, input: ConsolidateInput) -> ContributionPayload:
    contribution = await info.context.services.thoughts.consolidate(
        as_caller(info, input.to_thought_input()), input.source_ids, reason=input.reason
    )
    return ContributionPayload.from_domain(contribution)


@strawberry.type
class ThoughtMutation:
    contribute = strawberry.mutation(
        permission_classes=[CanWrite],
        resolver=resolve_contribute,
        description=(
            "Store a thought; with `refines` or `consolidates` it becomes a refinement or"
            " a consolidation (giving both is MUTUAL_EXCLUSION)."
        ),
    )
    contribute_many = strawberry.mutation(
        permission_classes=[CanWrite],
        resolver=resolve_contribute_many,
        description=(
            f"Store up to {MAX_BATCH} originals at once, in input order: all are checked"
            " before any is written (one bad item writes nothing, VALIDATION_ERROR), embedded"
            " in one batch and written together. No guidance is returned (null)."
        ),
    )
    refine = strawberry.mutation(
        permission_classes=[CanWrite],
        resolver=resolve_refine,
        description="Store a thought that refines (supersedes) `sourceId`.",
    )
    consolidate = strawberry.mutation(
        permission_classes=[CanWrite],
        resolver=resolve_consolidate,
        description="Store a thought that consolidates `sourceIds` (2 or more).",
    )
