"""The MCP tools, one module per feature. Each module's ``register(server, env)`` adds its
tools; a tool is one small function that checks the caller, calls the service GraphQL's
resolver calls, and returns a shape from ``shapes``. Domain errors are raised as they are:
``thoughtgraph.api.mcp.server`` turns them into tool errors carrying their code."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcp.server.mcpserver import MCPServer

from thoughtgraph.api.mcp.tools import (
    checkpoints,
    consent,
    consolidation,
    context,
    contradictions,
    episodes,
    history,
    insights,
    procedures,
    recall,
    retention,
    runs,
    search,
    thoughts,
    topics,
)
from thoughtgraph.api.mcp.tools.env import ToolEnv


def tool_groups() -> list[Callable[[MCPServer[Any], ToolEnv], None]]:
    return [
        search.register,
        recall.register,
        context.register,
        thoughts.register,
        retention.register,
        history.register,
        topics.register,
        contradictions.register,
        episodes.register,
        consolidation.register,
        runs.register,
        consent.register,
        checkpoints.register,
        insights.register,
        procedures.register,
    ]
