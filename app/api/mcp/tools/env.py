"""What every MCP tool module shares: the services and the caller (``ToolEnv``), the
annotations of reading and writing tools, and the common parameters."""

from __future__ import annotations

import asyncio
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


class RuntimeServices:
    """The services, once the runtime holding them has opened. A stdio server answers
    ``initialize`` and ``tools/list`` while its runtime (the store, the embedding model)
    still opens in the background; every other request waits for ``ready``."""

    def __init__(self, services: Services | None = None) -> None:
        self._services = services
        self._opened = asyncio.Event()
        if services is not None:
            self._opened.set()

    def provide(self, services: Services) -> None:
        self._services = services
        self._opened.set()

    async def ready(self) -> None:
        await self._opened.wait()

    @property
    def services(self) -> Services:
        if self._services is None:  # a request that did not wait for ``ready``
            raise RuntimeError("the runtime is still opening")
        return self._services


@dataclass(frozen=True)
class ToolEnv:
    """What every tool needs: the services, and who is calling."""

    runtime: RuntimeServices
    callers: Callers

    @property
    def services(self) -> Services:
        return self.runtime.services

    def caller(self, ctx: Context[Any, Any]) -> Principal:
        """The caller of this tool call (UNAUTHENTICATED without a valid key): the
        services decide what it may do."""
        return self.callers.principal(ctx.request_context.request)
