"""The MCP tools, one module per group. Each module's ``register(server, env)`` adds its
tools; a tool is one small function that checks the caller, calls the service GraphQL's
resolver calls, and returns a shape from ``shapes``. Domain errors are raised as they are:
``app.mcp.server`` turns them into tool errors carrying their code.

A group whose service is optional (built by another part of the service, absent in some
deployments) says so in ``available(services)``; it is registered only when that holds."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mcp.server.mcpserver import Context, MCPServer

from app.domain.access import Action, Principal
from app.mcp.access import Callers
from app.services.container import Services


@dataclass(frozen=True)
class ToolEnv:
    """What every tool needs: the services, and who is calling."""

    services: Services
    callers: Callers

    def caller(self, ctx: Context[Any, Any], action: Action, namespace: str) -> Principal:
        """The caller of this tool call, if it may do ``action`` on ``namespace``."""
        return self.callers.allowed(ctx.request_context.request, action, namespace)


@dataclass(frozen=True)
class ToolGroup:
    name: str
    register: Callable[[MCPServer[Any], ToolEnv], None]
    available: Callable[[Services], bool] = lambda services: True


def tool_groups() -> list[ToolGroup]:
    from app.mcp.tools import context, contradictions, reading, recall, thoughts

    return [
        ToolGroup("reading", reading.register),
        ToolGroup("recall", recall.register, recall.available),
        ToolGroup("context", context.register, context.available),
        ToolGroup("thoughts", thoughts.register),
        ToolGroup("contradictions", contradictions.register),
    ]
