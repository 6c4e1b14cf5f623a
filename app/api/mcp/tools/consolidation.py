"""Merging memories across users: propose shared consolidations of near-duplicate private
thoughts, and decide one's own part."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel, Field

from thoughtgraph.api.mcp.tools.env import WRITES, Namespace, ToolEnv
from thoughtgraph.api.mcp.tools.thoughts import UserId
from thoughtgraph.domain.models import DEFAULT_NAMESPACE
from thoughtgraph.domain.proposals import MergeProposal, PartDecision, ProposalStatus


class PartOut(BaseModel):
    owner_id: str
    decision: PartDecision
    thought_id: str | None  # null on another user's part


class ProposalOut(BaseModel):
    id: str
    status: ProposalStatus
    parts: list[PartOut]
    similarity: float
    merged_thought_id: str | None

    @classmethod
    def of(cls, proposal: MergeProposal) -> ProposalOut:
        return cls(
            id=proposal.id,
            status=proposal.status,
            parts=[
                PartOut(owner_id=p.owner_id, decision=p.decision, thought_id=p.thought_id)
                for p in proposal.parts
            ],
            similarity=proposal.similarity,
            merged_thought_id=proposal.merged_thought_id,
        )


class ProposalsOut(BaseModel):
    proposals: list[ProposalOut]


def register(server: MCPServer[Any], env: ToolEnv) -> None:
    async def propose_merge(
        ctx: Context[Any, Any],
        user_ids: Annotated[
            list[str], Field(description="2 to 10 users; your key's user among them.")
        ],
        namespace: Namespace = DEFAULT_NAMESPACE,
    ) -> ProposalsOut:
        """Propose each group of these users' near-duplicate private thoughts as one shared
        thought; every owner decides their own part (decide_merge)."""
        principal = env.caller(ctx)
        found = await env.services.proposals.propose(namespace, user_ids, caller=principal)
        return ProposalsOut(proposals=[ProposalOut.of(p) for p in found])

    async def decide_merge(
        ctx: Context[Any, Any],
        proposal_id: Annotated[str, Field(description="The proposal to decide your part of.")],
        accept: Annotated[bool, Field(description="true to merge your part, false to keep it.")],
        namespace: Namespace = DEFAULT_NAMESPACE,
        user_id: UserId = None,
    ) -> ProposalOut:
        """Accept or decline your part. Once every owner has decided, two or more accepted
        parts become one shared thought; fewer, and nothing changes. `user_id`: whose part,
        without keys only (with a key, its user's)."""
        principal = env.caller(ctx)
        decided = await env.services.proposals.decide(
            namespace, proposal_id, accept, caller=principal, user_id=user_id
        )
        return ProposalOut.of(decided)

    server.add_tool(propose_merge, annotations=WRITES.model_copy(update={"idempotent_hint": True}))
    server.add_tool(decide_merge, annotations=WRITES)
