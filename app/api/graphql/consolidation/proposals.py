"""Merge proposals across users' private memories: proposing, deciding, listing."""

from __future__ import annotations

from datetime import datetime

import strawberry

from thoughtgraph.api.graphql.request_context import Info
from thoughtgraph.api.graphql.thoughts.types import Thought, load_thought, optional_datetime
from thoughtgraph.domain import models, proposals
from thoughtgraph.domain import validation as check
from thoughtgraph.domain.models import DEFAULT_NAMESPACE
from thoughtgraph.domain.proposals import PartDecision, ProposalStatus

strawberry.enum(ProposalStatus, description="Whether every owner has decided, and how.")
strawberry.enum(PartDecision, description="An owner's decision on their part of a proposal.")


async def resolve_part_thought(root: ProposalPart, info: Info) -> Thought | None:
    if root.thought_id is None:
        return None
    return await load_thought(info, root.namespace, str(root.thought_id))


@strawberry.type(description="One user's thought in a merge proposal.")
class ProposalPart:
    owner_id: str
    decision: PartDecision
    thought_id: strawberry.ID | None = strawberry.field(
        description="Null on another user's part: their thought stays private."
    )
    thought = strawberry.field(resolver=resolve_part_thought, description="Yours only.")
    namespace: strawberry.Private[str]


@strawberry.type(
    description=(
        "Near-duplicate private thoughts of several users, to become one SHARED"
        " consolidation once every owner has decided and two or more parts are accepted."
    )
)
class MergeProposal:
    id: strawberry.ID
    namespace: str
    status: ProposalStatus
    parts: list[ProposalPart]
    similarity: float = strawberry.field(description="The least similar pair in it (cosine).")
    created_at: datetime
    decided_at: datetime | None
    merged_thought_id: strawberry.ID | None = strawberry.field(
        description="The shared consolidation it became (undo with undoConsolidation)."
    )

    @classmethod
    def from_domain(cls, found: proposals.MergeProposal) -> MergeProposal:
        return cls(
            id=strawberry.ID(found.id),
            namespace=found.namespace,
            status=found.status,
            parts=[
                ProposalPart(
                    owner_id=p.owner_id,
                    decision=p.decision,
                    thought_id=strawberry.ID(p.thought_id) if p.thought_id else None,
                    namespace=found.namespace,
                )
                for p in found.parts
            ],
            similarity=found.similarity,
            created_at=models.ms_to_datetime(found.created_at_ms),
            decided_at=optional_datetime(found.decided_at_ms),
            merged_thought_id=(
                strawberry.ID(found.merged_thought_id) if found.merged_thought_id else None
            ),
        )


async def resolve_propose_merge(
    info: Info, user_ids: list[str], namespace: str = DEFAULT_NAMESPACE
) -> list[MergeProposal]:
    caller = info.context.principal
    found = await info.context.services.proposals.propose(namespace, user_ids, caller=caller)
    return [MergeProposal.from_domain(p) for p in found]


async def resolve_decide_merge(
    info: Info,
    id: strawberry.ID,
    accept: bool,
    namespace: str = DEFAULT_NAMESPACE,
    user_id: str | None = None,
) -> MergeProposal:
    caller = info.context.principal
    decided = await info.context.services.proposals.decide(
        namespace, id, accept, caller=caller, user_id=user_id
    )
    return MergeProposal.from_domain(decided)


async def resolve_merge_proposals(
    info: Info,
    namespace: str = DEFAULT_NAMESPACE,
    status: ProposalStatus | None = None,
    first: int | None = check.DEFAULT_PAGE_SIZE,
) -> list[MergeProposal]:
    caller = info.context.principal
    found = await info.context.services.proposals.of_caller(namespace, status, first, caller=caller)
    return [MergeProposal.from_domain(p) for p in found]


@strawberry.type
class ProposalQuery:
    merge_proposals = strawberry.field(
        resolver=resolve_merge_proposals,
        description=(
            "Merge proposals your key's user has a part in (all of them in open local"
            " mode), newest first; `first` is 1 to 100."
        ),
    )


@strawberry.type
class ProposalMutation:
    propose_merge = strawberry.mutation(
        resolver=resolve_propose_merge,
        description=(
            "Find near-duplicate PRIVATE thoughts of these users (2 to 10; your key's user"
            " among them, or an admin key) and propose each group as one shared thought."
            " Proposing again finds the same proposals."
        ),
    )
    decide_merge = strawberry.mutation(
        resolver=resolve_decide_merge,
        description=(
            "Accept or decline your part of a proposal (`userId`: whose, in open local mode"
            " only). When every owner has decided, two or more accepted parts become one"
            " SHARED consolidation; fewer, and nothing changes."
        ),
    )
