"""assemble_context: the context an agent needs for what it is doing, tier by tier within
a token budget, under the caller's agent allowlist as GraphQL's ``assembleContext`` is."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel, Field

from thoughtgraph.api.mcp.tools.env import READ_ONLY, Namespace, ToolEnv
from thoughtgraph.api.mcp.tools.shapes import Shape
from thoughtgraph.domain.context import model
from thoughtgraph.domain.models import DEFAULT_NAMESPACE


class TierOut(Shape):
    tier: int  # 1 critical, 2 relevant, 3 background, 4 index
    budget: int
    items: int
    tokens: int


class ContextItemOut(BaseModel):
    tier: int
    source: str  # why it was picked: contradiction, decision, error, query, topic...
    level: str  # the compression level it is shown at
    tokens: int
    ids: list[str]


class AssembledContextOut(Shape):
    text: str
    token_count: int  # exact, with the tokenizer named below
    budget: int
    tokenizer: str
    revision: int  # pass it as since_revision next time for a delta header
    ids: list[str]
    tiers: list[TierOut]
    items: list[ContextItemOut]

    @classmethod
    def of(cls, assembled: model.AssembledContext) -> AssembledContextOut:
        packing = assembled.packing
        return cls.copy_of(
            packing,  # its text, token_count, budget and ids
            tokenizer=assembled.tokenizer,
            revision=assembled.revision,
            tiers=[TierOut.copy_of(usage) for usage in packing.tiers],
            items=[
                ContextItemOut(
                    tier=int(item.tier),
                    source=item.candidate.source,
                    level=str(item.level),
                    tokens=item.tokens,
                    ids=sorted(item.candidate.covers),
                )
                for item in packing.items
            ],
        )

    def as_text(self) -> str:
        """The context itself, then what it cost and the revision to pass next time."""
        footer = (
            f"({self.token_count} of {self.budget} tokens, {len(self.ids)} thoughts; "
            f"revision {self.revision})"
        )
        return f"{self.text}\n\n{footer}" if self.text else footer


def register(server: MCPServer[Any], env: ToolEnv) -> None:
    async def assemble_context(
        ctx: Context[Any, Any],
        namespace: Namespace = DEFAULT_NAMESPACE,
        budget: Annotated[
            int | None, Field(description="Tokens the context may use (default 8000).")
        ] = None,
        query: Annotated[str | None, Field(description="What the agent is asking.")] = None,
        current_file: Annotated[str | None, Field(description="The file being worked on.")] = None,
        branch: Annotated[str | None, Field(description="The branch being worked on.")] = None,
        recent_errors: Annotated[
            list[str] | None, Field(description="Error messages seen lately.")
        ] = None,
        activity: Annotated[
            str | None, Field(description="e.g. debugging (widens the critical tier).")
        ] = None,
        agent: Annotated[
            str | None,
            Field(description="The agent the context is for, when the API key names none."),
        ] = None,
        collaborators: Annotated[
            list[str] | None, Field(description="Agents whose preferences matter.")
        ] = None,
        since_revision: Annotated[
            int | None, Field(description="Start with what changed since this revision.")
        ] = None,
    ) -> AssembledContextOut:
        """The context for what the agent is doing, in four tiers (critical, relevant,
        background, index), each item at the compression level that fits, never over
        the budget; with since_revision, headed by the memory updates since then."""
        principal = env.caller(ctx)
        signals = model.Signals(
            query=query,
            current_file=current_file,
            branch=branch,
            recent_errors=tuple(recent_errors or ()),
            activity=activity,
            agent=agent,
            collaborators=tuple(collaborators or ()),
        )
        assembled = await env.services.context.assemble(
            namespace,
            budget=budget,
            signals=signals,
            since_revision=since_revision,
            caller=principal,
        )
        return AssembledContextOut.of(assembled)

    server.add_tool(assemble_context, annotations=READ_ONLY)
