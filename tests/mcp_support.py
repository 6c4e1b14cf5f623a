"""Driving `thoughtgraph mcp` from tests: its environment, the MCP SDK's own client over
stdio (which spawns the process) or streamable HTTP (a process the helper starts), and
calls that expect an answer or a coded tool error."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from tests.support import THOUGHTGRAPH_CLI, free_port, serve_process
from thoughtgraph.api.keyfile import KeyFile
from thoughtgraph.domain.access import Role
from thoughtgraph.settings import EmbedderKind, Settings

REPO = Path(__file__).resolve().parent.parent
AGENT = {"agent_id": "agent-1", "agent_name": "Agent One"}


def process_env(settings: Settings, **extra: str) -> dict[str, str]:
    """The test's environment without its TG_ variables, plus ``settings``' engine and
    ``extra``. JSON logs, so the test can read what the process did."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TG_")}
    env.update(settings.child_environment(), TG_DATA_DIR=str(settings.data_dir))
    env["TG_LOG_FORMAT"] = "json"
    env.update(extra)
    return env


@dataclass
class McpServer:
    """How to reach one `thoughtgraph mcp`: a command the stdio client spawns per session,
    or the URL of an HTTP server the fixture started."""

    transport: str
    env: dict[str, str]
    log: Path
    url: str | None = None

    @contextlib.asynccontextmanager
    async def session(self, key: str | None = None) -> AsyncIterator[ClientSession]:
        """An initialised SDK client session, acting with ``key`` (none: no key)."""
        if self.transport == "stdio":
            env = self.env | ({"TG_MCP_KEY": key} if key else {})
            params = StdioServerParameters(
                command=sys.executable, args=[*THOUGHTGRAPH_CLI[1:], "mcp"], env=env, cwd=REPO
            )
            with self.log.open("a") as errlog:
                async with (
                    stdio_client(params, errlog=errlog) as (read, write),
                    ClientSession(read, write) as session,
                ):
                    await session.initialize()
                    yield session
            return
        assert self.url is not None
        headers = {"authorization": f"Bearer {key}"} if key else None
        async with (
            create_mcp_http_client(headers=headers) as http,
            streamable_http_client(self.url, http_client=http) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            yield session


def user_keys(keys: KeyFile, ns: str, users: Sequence[str]) -> dict[str, str]:
    """A writer key of ``ns`` for each user, acting for that user (agent ``<user>-bot``):
    each key's text by user."""
    texts = {}
    for user in users:
        _, texts[user] = keys.create(
            name=user,
            namespaces=[ns],
            agent_id=f"{user}-bot",
            agent_name=user,
            role=Role.WRITER,
            user=user,
        )
    return texts


def keyed_env(
    engine_settings: Callable[..., Settings], request: Any, keys: KeyFile
) -> dict[str, str]:
    """An MCP server's environment on the test's engine, requiring the keys of ``keys``
    (the hash embedder at the suite's dimension: on Neo4j, the suite's schema)."""
    if engine_settings().neo4j_uri:
        request.getfixturevalue("neo4j_store")  # the suite's schema (hash embedder, 384)
    settings = engine_settings(embedder=EmbedderKind.HASH, embedding_dimension=384)
    return process_env(settings, TG_KEYS_FILE=str(keys.path), TG_REQUIRE_KEYS="true")


@contextlib.contextmanager
def mcp_server(transport: str, env: dict[str, str], log: Path) -> Iterator[McpServer]:
    if transport == "stdio":
        yield McpServer("stdio", env, log)
        return
    port = free_port()
    command = [*THOUGHTGRAPH_CLI, "mcp", "--transport", "http", "--port", str(port)]
    with serve_process(command, port=port, env=env, log=log, timeout=120):
        yield McpServer("http", env, log, url=f"http://127.0.0.1:{port}/mcp")


async def call(session: ClientSession, tool: str, **arguments: Any) -> dict[str, Any]:
    result = await session.call_tool(tool, arguments)
    assert not result.is_error, result.content
    structured: dict[str, Any] | None = result.structured_content
    assert structured is not None
    return structured


async def refused(session: ClientSession, tool: str, **arguments: Any) -> str:
    """The code of the tool error ``tool`` answers with; its text names the code too."""
    result = await session.call_tool(tool, arguments)
    assert result.is_error, result.structured_content
    assert result.structured_content is not None
    code = str(result.structured_content["code"])
    text = result.content[0].text  # type: ignore[union-attr]
    assert text.startswith(f"[{code}] ") and result.structured_content["message"] in text
    return code


def leaves(error: BaseException) -> list[BaseException]:
    """The exceptions inside (nested) exception groups, as anyio task groups raise them."""
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in leaves(inner)]
    return [error]


async def everything(session: ClientSession, ns: str) -> set[str]:
    """The ids of every thought in the namespace (a search that keeps every hit)."""
    found = await call(session, "search", query="anything", namespace=ns, k=100, threshold=-1.0)
    return {hit["thought"]["id"] for hit in found["hits"]}
