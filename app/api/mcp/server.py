"""The MCP server over one Runtime: its tools (``thoughtgraph.api.mcp.tools``) and how
their failures reach the client.

A failure is a tool error (``isError``), never a crash of the server or a protocol error:
its text starts with the code in brackets and ``structuredContent`` holds ``code`` and
``message`` (and the error's details), so an agent can branch on the code as it does on
GraphQL's ``extensions.code``. Arguments that do not fit a tool's input schema are
``VALIDATION_ERROR`` like the domain's own checks; anything unexpected is logged here and
answered ``INTERNAL_ERROR`` without its text. An answer larger than GraphQL's response
cap (``TG_MAX_RESPONSE_BYTES``) is ``RESPONSE_TOO_LARGE`` instead, as it is there.

A success carries the answer twice: ``structuredContent``, the tool's shape validated
against its output schema, for programs; and a text of a few lines (``compact``), one per
item, for the model, instead of the SDK's indented JSON of the same shape.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import Any

import structlog
from mcp.server.lowlevel.helper_types import ReadResourceContents
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp_types import CallToolResult, GetPromptResult, InputRequiredResult, TextContent
from mcp_types import Resource as MCPResource
from pydantic import AnyUrl, BaseModel, ValidationError

from thoughtgraph.api.mcp import prompts, resources
from thoughtgraph.api.mcp.access import Callers
from thoughtgraph.api.mcp.compact import text_of
from thoughtgraph.api.mcp.tools import tool_groups
from thoughtgraph.api.mcp.tools.env import RuntimeServices, ToolEnv
from thoughtgraph.domain.errors import InvalidInputError, ThoughtgraphError
from thoughtgraph.features.services import Services

log = structlog.get_logger(__name__)

SERVER_NAME = "thoughtgraph"
INSTRUCTIONS = (
    "A knowledge-graph memory shared by agents. `search` before you contribute; "
    "`contribute` what you learn, `refine` a thought that changed (lineage keeps the old "
    "one), `supersede` one that no longer holds. Every tool takes a `namespace` "
    "(default 'default'); a failure names its code in brackets, e.g. [VALIDATION_ERROR]. "
    "Answers list one thought a line: id, kind, date, [superseded] where it no longer "
    "holds, content (cut); the structured content has every field."
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


def with_compact_text(tool: Callable[..., Any]) -> Callable[..., Any]:
    """``tool`` answering its shape as structured content and its compact text as the
    content. The SDK reads the signature (arguments, output schema) through the wrapper
    and still validates the structured content against the output schema."""

    @functools.wraps(tool)
    async def answer(*args: Any, **kwargs: Any) -> Any:
        shape = await tool(*args, **kwargs)
        if not isinstance(shape, BaseModel):
            return shape
        return CallToolResult(
            content=[TextContent(type="text", text=text_of(shape))],
            structured_content=shape.model_dump(mode="json", by_alias=True),
        )

    return answer


class ThoughtgraphMCP(MCPServer[Any]):
    def __init__(
        self, *args: Any, max_response_bytes: int, runtime: RuntimeServices, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self.max_response_bytes = max_response_bytes
        self.runtime = runtime  # tools, resources and prompts wait for it to open

    def add_tool(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
        """Every tool answers with compact text beside its structured content."""
        super().add_tool(with_compact_text(fn), *args, **kwargs)

    async def list_resources(self) -> list[MCPResource]:
        """The resources, and the templates filled in for the default namespace."""
        return [*await super().list_resources(), *resources.default_resources()]

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        await self.runtime.ready()
        try:
            result = await super().call_tool(name, arguments, context)
        except ToolError as exc:
            return self._failure(name, exc)
        if isinstance(result, CallToolResult):
            return self._within_size(name, result)
        return result

    async def read_resource(
        self, uri: AnyUrl | str, context: Context[Any, Any] | None = None
    ) -> Iterable[ReadResourceContents] | InputRequiredResult:
        await self.runtime.ready()
        return await super().read_resource(uri, context)

    async def get_prompt(
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        context: Context[Any, Any] | None = None,
    ) -> GetPromptResult | InputRequiredResult:
        await self.runtime.ready()
        return await super().get_prompt(name, arguments, context)

    def _within_size(self, name: str, result: CallToolResult) -> CallToolResult:
        """The answer, unless larger than the cap: the backstop GraphQL has for what the
        arguments' limits cannot see (long texts)."""
        size = len(result.model_dump_json(by_alias=True, exclude_none=True).encode())
        if size <= self.max_response_bytes:
            return result
        limit = self.max_response_bytes
        log.warning("mcp.response_too_large", tool=name, size=size, limit=limit)
        message = (
            f"The response would be {size:,} bytes; the limit is {limit:,}. "
            "Ask for fewer items (k, first)."
        )
        return error_result("RESPONSE_TOO_LARGE", message, size=size, limit=limit)

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


def build_server(
    services: Services | RuntimeServices, callers: Callers, *, max_response_bytes: int
) -> ThoughtgraphMCP:
    """The server with every tool group, its resources and prompts over these services
    (or those of a runtime still opening: requests but the listings wait for them)."""
    runtime = services if isinstance(services, RuntimeServices) else RuntimeServices(services)
    server = ThoughtgraphMCP(
        SERVER_NAME,
        instructions=INSTRUCTIONS,
        version=_version(),
        max_response_bytes=max_response_bytes,
        runtime=runtime,
    )
    env = ToolEnv(runtime=runtime, callers=callers)
    for register in (*tool_groups(), resources.register, prompts.register):
        register(server, env)
    return server


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("thoughtgraph")
    except PackageNotFoundError:
        return "0"
