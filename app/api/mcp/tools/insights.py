"""Asking for insights about people: the insights job, queued for a namespace. The
insights themselves are thoughts of kind ``insight``: ``search`` finds them."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel

from thoughtgraph.api.mcp.tools.env import WRITES, Namespace, ToolEnv
from thoughtgraph.domain.models import DEFAULT_NAMESPACE


class InsightsRequestOut(BaseModel):
    queued: bool  # false where no worker takes jobs: nothing runs


def register(server: MCPServer[Any], env: ToolEnv) -> None:
    async def request_insights(
        ctx: Context[Any, Any], namespace: Namespace = DEFAULT_NAMESPACE
    ) -> InsightsRequestOut:
        """Queue the insights job (needs write access): with a language model configured,
        a worker writes 1-3 insights (kind insight, category relationship_dynamic) about
        each person with new activity and no insight in the last 24 hours. queued is
        false where no worker takes jobs."""
        queued = await env.services.insights.request(namespace, caller=env.caller(ctx))
        return InsightsRequestOut(queued=queued)

    server.add_tool(
        request_insights, annotations=WRITES.model_copy(update={"idempotent_hint": True})
    )
