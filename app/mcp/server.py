"""The MCP server over one Runtime: its tools (``app.mcp.tools``) and how their failures
reach the client.

A failure is a tool error (``isError``), never a crash of the server or a protocol error:
its text starts with the code in brackets and ``structuredContent`` holds ``code`` and
``message`` (and the error's details), so an agent can branch on the code as it does on
GraphQL's ``extensions.code``. Arguments that do not fit a tool's input schema are
``VALIDATION_ERROR`` like the domain's own checks; anything unexpected is logged here and
answered ``INTERNAL_ERROR`` without its text.
"""

from __future__ import annotations

from typing import Any

import structlog
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp_types import CallToolResult, InputRequiredResult, TextContent
from pydantic import ValidationError

from app.domain.errors import InvalidInputError, ThoughtgraphError
from app.mcp.access import Callers
from app.mcp.tools import ToolEnv, tool_groups
from app.runtime import Runtime

log = structlog.get_logger(__name__)

SERVER_NAME = "thoughtgraph"
INSTRUCTIONS = (
    "A knowledge-graph memory shared by agents. `search` before you contribute; "
    "`contribute` what you learn, `refine` a thought that changed (lineage keeps the old "
    "one), `supersede` one that no longer holds. Every tool takes a `namespace` "
    "(default 'default'); a failure names its code in brackets, e.g. [VALIDATION_ERROR]."
)


def error_result(code: str, message: str, **details: Any) -> CallToolResult:
    return CallToolResult(
        content=[TextContent(type="text", text=f"[{code}] {message}")],
        structured_content={"code": code, "message": message, **details},
        is_error=True,
    )


def domain_error_result(error: ThoughtgraphError) -> CallToolResult:
    """What the client is told: the public message where the error has one (an engine's
    or a model's own words stay in the log), else the message and its details."""
    if error.public_message is not None:
        return error_result(error.code, error.public_message)
    return error_result(error.code, error.message, **error.details)


def invalid_arguments_result(error: ValidationError) -> CallToolResult:
    first = error.errors()[0]
    field = ".".join(str(part) for part in first["loc"]) or "arguments"
    problem = InvalidInputError(f"{field}: {first['msg']}", field=field)
    return domain_error_result(problem)


class ThoughtgraphMCP(MCPServer[Any]):
    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            return self._failure(name, exc)

    def _failure(self, name: str, exc: ToolError) -> CallToolResult:
        cause = exc.__cause__
        if isinstance(cause, ThoughtgraphError):
            log.info("mcp.tool_refused", tool=name, code=cause.code, error=cause.message)
            return domain_error_result(cause)
        if isinstance(cause, ValidationError):
            return invalid_arguments_result(cause)
        if isinstance(exc, UnexpectedToolError):
            log.error("mcp.tool_failed", tool=name, exc_info=cause or exc)
            return error_result("INTERNAL_ERROR", "The tool failed unexpectedly; see the log.")
        return error_result("BAD_REQUEST", str(exc))  # an unknown tool name


def build_server(runtime: Runtime, callers: Callers) -> ThoughtgraphMCP:
    """The server with every tool group whose services this runtime has."""
    server = ThoughtgraphMCP(SERVER_NAME, instructions=INSTRUCTIONS, version=_version())
    env = ToolEnv(services=runtime.services, callers=callers)
    for group in tool_groups():
        if group.available(runtime.services):
            group.register(server, env)
    return server


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("thoughtgraph")
    except PackageNotFoundError:
        return "0"
