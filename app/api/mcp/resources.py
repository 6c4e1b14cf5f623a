"""MCP resources: what an agent's client can read without calling a tool, under the same
keys and caller rules as the tools (``ToolEnv.caller``).

- ``thoughtgraph://namespaces/{namespace}/topics``: the namespace's topics, one line each
- ``thoughtgraph://namespaces/{namespace}/session-start``: the session-start block
  (``<thoughtgraph-memory ...>``), as GraphQL's ``sessionBlock`` gives it
- ``thoughtgraph://thoughts/{thought_id}{?namespace}``: one thought, its line then its
  whole content

A refusal is a JSON-RPC error whose message starts with the code in brackets and whose
``data`` holds the code, as a tool's error does.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import Any, ParamSpec, TypeVar

from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS
from mcp_types import Resource as MCPResource

from thoughtgraph.api.mcp.tools.env import ToolEnv
from thoughtgraph.api.mcp.tools.shapes import ThoughtOut
from thoughtgraph.api.mcp.tools.topics import TopicOut, TopicsOut
from thoughtgraph.domain.errors import ThoughtgraphError, ThoughtNotFoundError
from thoughtgraph.domain.models import DEFAULT_NAMESPACE
from thoughtgraph.domain.validation import DEFAULT_PAGE_SIZE

TOPICS_URI = "thoughtgraph://namespaces/{namespace}/topics"
SESSION_START_URI = "thoughtgraph://namespaces/{namespace}/session-start"
THOUGHT_URI = "thoughtgraph://thoughts/{thought_id}{?namespace}"
TEXT = "text/plain"

P = ParamSpec("P")
R = TypeVar("R")


def coded(fn: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R]]:
    """``fn`` with a domain error raised as a JSON-RPC error carrying its code (the SDK
    would answer any other exception as an internal error without it)."""

    @functools.wraps(fn)
    async def reading(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return await fn(*args, **kwargs)
        except ThoughtgraphError as error:
            message = error.public_message or error.message
            data = {"code": error.code, "message": message}
            raise MCPError(INVALID_PARAMS, f"[{error.code}] {message}", data) from error

    return reading


def default_resources() -> list[MCPResource]:
    """The templates filled in for the default namespace: what resources/list shows (a
    template is listed by resources/templates/list only)."""
    return [
        MCPResource(
            uri=TOPICS_URI.format(namespace=DEFAULT_NAMESPACE),
            name="topics",
            description="The default namespace's topics with their summaries.",
            mime_type=TEXT,
        ),
        MCPResource(
            uri=SESSION_START_URI.format(namespace=DEFAULT_NAMESPACE),
            name="session-start",
            description="The default namespace's session-start block.",
            mime_type=TEXT,
        ),
    ]


def register(server: MCPServer[Any], env: ToolEnv) -> None:
    @server.resource(TOPICS_URI, name="topics", description="A namespace's topics.", mime_type=TEXT)
    @coded
    async def topics(namespace: str, ctx: Context[Any, Any]) -> str:
        found = await env.services.topics.recent(
            namespace, DEFAULT_PAGE_SIZE, caller=env.caller(ctx)
        )
        return TopicsOut(topics=[TopicOut.of(topic) for topic in found]).as_text()

    @server.resource(
        SESSION_START_URI,
        name="session-start",
        description="The session-start block: what an agent should know as it starts.",
        mime_type=TEXT,
    )
    @coded
    async def session_start(namespace: str, ctx: Context[Any, Any]) -> str:
        block, _ = await env.services.context.session_block(namespace, caller=env.caller(ctx))
        return block.text

    @server.resource(THOUGHT_URI, name="thought", description="One thought by id.", mime_type=TEXT)
    @coded
    async def thought(
        thought_id: str, ctx: Context[Any, Any], namespace: str = DEFAULT_NAMESPACE
    ) -> str:
        found = await env.services.thoughts.get(namespace, thought_id, caller=env.caller(ctx))
        if found is None:
            raise ThoughtNotFoundError([thought_id])
        shown = ThoughtOut.of(found)
        return f"{shown.line()}\n\n{shown.content}"
