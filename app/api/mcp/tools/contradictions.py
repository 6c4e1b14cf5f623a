"""Contradictions: list those found, and decide one."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from pydantic import Field

from thoughtgraph.api.mcp.tools.env import READ_ONLY, WRITES, Namespace, ToolEnv
from thoughtgraph.api.mcp.tools.shapes import ContradictionOut, ContradictionsOut
from thoughtgraph.domain.knowledge import ContradictionStatus, Resolution
from thoughtgraph.domain.models import DEFAULT_NAMESPACE
from thoughtgraph.domain.validation import DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE
from thoughtgraph.features.access import actor_of


def register(server: MCPServer[Any], env: ToolEnv) -> None:
    async def contradictions(
        ctx: Context[Any, Any],
        status: Annotated[
            ContradictionStatus | None, Field(description="open or resolved; both if left out.")
        ] = ContradictionStatus.OPEN,
        first: Annotated[
            int, Field(description=f"At most this many, 1 to {MAX_PAGE_SIZE}.")
        ] = DEFAULT_PAGE_SIZE,
        namespace: Namespace = DEFAULT_NAMESPACE,
    ) -> ContradictionsOut:
        """Pairs of thoughts that cannot both be current (`thought_a_id` the older,
        `thought_b_id` the newer), open ones by default."""
        principal = env.caller(ctx)
        found = await env.services.contradictions.by_status(
            namespace, status, first, caller=principal
        )
        return ContradictionsOut(contradictions=[ContradictionOut.of(c) for c in found])

    async def resolve_contradiction(
        ctx: Context[Any, Any],
        contradiction_id: Annotated[str, Field(description="The contradiction to decide.")],
        resolution: Annotated[
            Resolution,
            Field(
                description="a_wins or b_wins (the winner supersedes the other), merged (a "
                "consolidation of both supersedes them) or both_valid (never flagged again)."
            ),
        ],
        note: Annotated[str | None, Field(description="Why; kept with the decision.")] = None,
        merged_content: Annotated[
            str | None, Field(description="The merged thought's text, for merged.")
        ] = None,
        namespace: Namespace = DEFAULT_NAMESPACE,
    ) -> ContradictionOut:
        """Decide a contradiction. Repeating the same decision is a no-op; a different one
        is INVALID_STATE; an unknown id NOT_FOUND."""
        principal = env.caller(ctx)
        resolved = await env.services.contradictions.resolve(
            namespace,
            contradiction_id,
            resolution,
            actor=actor_of(principal),
            note=note,
            merged_content=merged_content,
            caller=principal,
        )
        return ContradictionOut.of(resolved)

    server.add_tool(contradictions, annotations=READ_ONLY)
    server.add_tool(
        resolve_contradiction, annotations=WRITES.model_copy(update={"idempotent_hint": True})
    )
