"""What every MCP tool module shares: the services and the caller (``ToolEnv``), the
annotations of reading and writing tools, and the common parameters."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from mcp.server.mcpserver import Context
from mcp_types import ToolAnnotations
from pydantic import Field

from thoughtgraph.api.mcp.access import Callers
from thoughtgraph.domain.access import Principal
from thoughtgraph.features.services import Services

READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)
WRITES = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)
Namespace = Annotated[str, Field(description="The namespace to work in.")]
Agent = Annotated[
    str | None, Field(description="The allowlist to read under, when the API key names none.")
]


@dataclass(frozen=True)
class ToolEnv:
    """What every tool needs: the services, and who is calling."""

    services: Services
    callers: Callers

    def caller(self, ctx: Context[Any, Any]) -> Principal:
        """The caller of this tool call (UNAUTHENTICATED without a valid key): the
        services decide what it may do."""
        return self.callers.principal(ctx.request_context.request)
