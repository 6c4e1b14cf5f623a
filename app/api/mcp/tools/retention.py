"""A thought's retention: forget it (left out of every read until restored, purged
later) and restore it, as GraphQL's ``forget`` and ``restore``."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from pydantic import Field

from thoughtgraph.api.mcp.tools.env import WRITES, Namespace, ToolEnv
from thoughtgraph.api.mcp.tools.shapes import ThoughtOut
from thoughtgraph.domain.models import DEFAULT_NAMESPACE
from thoughtgraph.features.access import actor_of

ThoughtId = Annotated[str, Field(description="The thought, by id.")]


def register(server: MCPServer[Any], env: ToolEnv) -> None:
    async def forget(
        ctx: Context[Any, Any], thought_id: ThoughtId, namespace: Namespace = DEFAULT_NAMESPACE
    ) -> ThoughtOut:
        """Forget a thought: left out of every read until restored, purged after the
        namespace's grace period. Returns it as it is now (state soft_deleted)."""
        principal = env.caller(ctx)
        forgotten = await env.services.retention.forget(
            namespace, thought_id, actor_of(principal), caller=principal
        )
        return ThoughtOut.of(forgotten)

    async def restore(
        ctx: Context[Any, Any], thought_id: ThoughtId, namespace: Namespace = DEFAULT_NAMESPACE
    ) -> ThoughtOut:
        """Bring a forgotten thought back (a purged one is THOUGHT_NOT_FOUND). Returns it
        as it is now (state active)."""
        principal = env.caller(ctx)
        restored = await env.services.retention.restore(
            namespace, thought_id, actor_of(principal), caller=principal
        )
        return ThoughtOut.of(restored)

    idempotent = WRITES.model_copy(update={"idempotent_hint": True})
    server.add_tool(forget, annotations=idempotent.model_copy(update={"destructive_hint": True}))
    server.add_tool(restore, annotations=idempotent)
