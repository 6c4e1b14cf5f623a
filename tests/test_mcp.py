"""`thoughtgraph mcp` as a real process, through the MCP SDK's own client, over stdio (the
client spawns it) and streamable HTTP, on both engines: its tools call the services
GraphQL calls, failures are tool errors with a code that write nothing, and the API keys
of the GraphQL service apply. On the embedded engine it attaches to the engine a running
`thoughtgraph serve` owns."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError

from app.domain.access import Role
from app.keyfile import KeyFile
from app.llm.embedders.base import TextEmbedder
from app.runtime import open_runtime
from app.settings import EmbedderKind, Settings
from tests.support import THOUGHTGRAPH_CLI, free_port, log_events, serve_process
from tests.test_serve_process import running_service

REPO = Path(__file__).resolve().parent.parent
TOOLS = {
    "search",
    "lineage",
    "contribute",
    "refine",
    "supersede",
    "contradictions",
    "resolve_contradiction",
}
AGENT = {"agent_id": "agent-1", "agent_name": "Agent One"}


def process_env(settings: Settings, **extra: str) -> dict[str, str]:
    """The test's environment without its TG_ variables, plus ``settings``' engine and
    ``extra``. JSON logs, so the test can read what the process did."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TG_")}
    env.update(
        TG_DATA_DIR=str(settings.data_dir),
        TG_EMBEDDER=settings.embedder.value,
        TG_LOG_FORMAT="json",
    )
    if settings.embedding_dimension is not None:
        env["TG_EMBEDDING_DIMENSION"] = str(settings.embedding_dimension)
    if settings.neo4j_uri:
        env.update(
            TG_NEO4J_URI=settings.neo4j_uri,
            TG_NEO4J_USER=settings.neo4j_user,
            TG_NEO4J_PASSWORD=settings.neo4j_password.get_secret_value(),
            TG_NEO4J_DATABASE=settings.neo4j_database,
        )
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


# --- the tools, on both engines and both transports ------------------------------------------


@pytest.fixture(params=("stdio", "http"))
def transport(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def scenario_settings(
    request: pytest.FixtureRequest, engine: str, engine_settings: Callable[..., Settings]
) -> Settings:
    if engine == "neo4j":
        request.getfixturevalue("neo4j_store")  # the suite's schema record (test:, 384)
    return engine_settings(embedder=EmbedderKind.LOCAL)


async def scan_for_contradictions(
    settings: Settings, embedder: TextEmbedder, ns: str, thought_ids: list[str]
) -> None:
    """What a worker does after a write, here: attached to the engine the MCP process
    owns (or to the same Neo4j), with the rules judge."""
    from app.jobs.contradiction_scan import scan_thoughts

    async with open_runtime(settings, attach=True, embedder=embedder) as runtime:
        result = await scan_thoughts(runtime, ns, thought_ids)
    assert result.contradictions_found == 1, result


def test_the_tools_through_the_sdk_client(
    transport: str,
    scenario_settings: Settings,
    local_embedder: TextEmbedder,
    tmp_path: Path,
    ns: str,
) -> None:
    env = process_env(scenario_settings)
    with mcp_server(transport, env, tmp_path / "mcp.log") as server:

        async def scenario() -> None:
            async with server.session() as session:
                await _listing(session)
                await _contribute_search_refine_lineage(session, ns)
                await _supersede(session, ns)
                await _bad_input_writes_nothing(session, ns)
                await _contradiction(session, ns, scenario_settings, local_embedder)

        asyncio.run(scenario())


async def _listing(session: ClientSession) -> None:
    listed = {tool.name: tool for tool in (await session.list_tools()).tools}
    assert set(listed) == TOOLS
    for tool in listed.values():
        assert tool.description and tool.output_schema, tool.name
        assert "namespace" in tool.input_schema["properties"], tool.name
    assert listed["search"].annotations and listed["search"].annotations.read_only_hint
    assert "content" in listed["contribute"].input_schema["required"]


async def _contribute_search_refine_lineage(session: ClientSession, ns: str) -> None:
    written = await call(
        session,
        "contribute",
        content="Agents are monitored by their status and role.",
        namespace=ns,
        tags=["ops"],
        kind="decision",
        importance=4,
        **AGENT,
    )
    original = written["thought"]
    assert (original["type"], original["kind"], original["importance"]) == (
        "original",
        "decision",
        4,
    )
    assert (original["agent_id"], original["tags"]) == ("agent-1", ["ops"])
    hits = (await call(session, "search", query="how are agents monitored?", namespace=ns))["hits"]
    assert hits[0]["thought"]["id"] == original["id"] and hits[0]["similarity"] > 0.5

    refined = (
        await call(
            session,
            "refine",
            source_id=original["id"],
            content="Agents are monitored by their role only.",
            reason="status turned out to be unreliable",
            namespace=ns,
            **AGENT,
        )
    )["thought"]
    assert (refined["type"], refined["source_ids"]) == ("refinement", [original["id"]])
    lineage = await call(session, "lineage", thought_id=original["id"], namespace=ns)
    depths = {node["thought_id"]: node["depth"] for node in lineage["chain"]}
    assert depths == {original["id"]: 0, refined["id"]: 1} and not lineage["truncated"]
    hits = (await call(session, "search", query="how are agents monitored?", namespace=ns))["hits"]
    by_id = {hit["thought"]["id"]: hit for hit in hits}
    assert (
        by_id[original["id"]]["superseded"]
        and by_id[original["id"]]["refined_by"] == (refined["id"])
    )
    assert [hit["thought"]["id"] for hit in hits].index(refined["id"]) < [
        hit["thought"]["id"] for hit in hits
    ].index(original["id"])


async def _supersede(session: ClientSession, ns: str) -> None:
    older = await call(
        session, "contribute", content="Deploys happen on Fridays.", namespace=ns, **AGENT
    )
    newer = await call(
        session, "contribute", content="Deploys happen on Tuesdays now.", namespace=ns, **AGENT
    )
    older_id, newer_id = older["thought"]["id"], newer["thought"]["id"]
    retired = await call(
        session,
        "supersede",
        newer_id=newer_id,
        older_id=older_id,
        reason="the release train moved",
        namespace=ns,
    )
    assert retired["id"] == older_id and retired["superseded_by"] == newer_id
    assert retired["superseded_at"] is not None
    current = await call(
        session, "search", query="when do deploys happen?", namespace=ns, current_only=True
    )
    ids = [hit["thought"]["id"] for hit in current["hits"]]
    assert newer_id in ids and older_id not in ids
    # Reversing the decision is refused with the domain's code.
    assert (
        await refused(
            session, "supersede", newer_id=older_id, older_id=newer_id, reason="no", namespace=ns
        )
        == "INVALID_STATE"
    )


async def _bad_input_writes_nothing(session: ClientSession, ns: str) -> None:
    before = await everything(session, ns)
    some_id = next(iter(before))
    unknown = "00000000-0000-4000-8000-00000000000f"
    why = {"reason": "because"}
    attempts: list[tuple[str, dict[str, Any], str]] = [
        ("contribute", {"content": "   ", **AGENT}, "VALIDATION_ERROR"),
        ("contribute", {"content": "x", "importance": 9, **AGENT}, "VALIDATION_ERROR"),
        ("contribute", {"content": "x", "importance": "lots", **AGENT}, "VALIDATION_ERROR"),
        ("contribute", {"content": "x", "tags": ["<script>"], **AGENT}, "VALIDATION_ERROR"),
        ("contribute", {"content": "nul \x00 inside", **AGENT}, "VALIDATION_ERROR"),
        ("contribute", {"content": "who am I?"}, "VALIDATION_ERROR"),  # no agent, no key
        ("contribute", {"content": "x", "kind": "gossip", **AGENT}, "VALIDATION_ERROR"),
        ("refine", {"source_id": unknown, "content": "x", **AGENT}, "THOUGHT_NOT_FOUND"),
        ("refine", {"source_id": "not-an-id", "content": "x", **AGENT}, "VALIDATION_ERROR"),
        ("supersede", {"newer_id": some_id, "older_id": some_id, **why}, "VALIDATION_ERROR"),
        ("supersede", {"newer_id": unknown, "older_id": some_id, **why}, "THOUGHT_NOT_FOUND"),
        ("lineage", {"thought_id": unknown}, "THOUGHT_NOT_FOUND"),
        ("lineage", {"thought_id": some_id, "max_depth": 11}, "VALIDATION_ERROR"),
        ("search", {"query": "x", "k": 0}, "VALIDATION_ERROR"),
        ("resolve_contradiction", {"contradiction_id": "c", "resolution": "a_wins"}, "NOT_FOUND"),
    ]  # fmt: skip
    for tool, arguments, code in attempts:
        assert await refused(session, tool, namespace=ns, **arguments) == code, (tool, arguments)
    assert await refused(session, "search", query="x", namespace="bad namespace!") == (
        "VALIDATION_ERROR"
    )
    assert await everything(session, ns) == before


async def _contradiction(
    session: ClientSession, ns: str, settings: Settings, embedder: TextEmbedder
) -> None:
    older = (
        await call(
            session,
            "contribute",
            content="The billing service listens on port 8080.",
            namespace=ns,
            **AGENT,
        )
    )["thought"]["id"]
    newer = (
        await call(
            session,
            "contribute",
            content="The billing service now listens on port 9443.",
            namespace=ns,
            **AGENT,
        )
    )["thought"]["id"]
    await scan_for_contradictions(settings, embedder, ns, [newer])
    (found,) = (await call(session, "contradictions", namespace=ns))["contradictions"]
    assert (found["thought_a_id"], found["thought_b_id"], found["status"]) == (
        older,
        newer,
        "open",
    )
    decided = await call(
        session,
        "resolve_contradiction",
        contradiction_id=found["id"],
        resolution="b_wins",
        note="moved behind TLS",
        namespace=ns,
    )
    assert (decided["status"], decided["resolution"], decided["note"]) == (
        "resolved",
        "b_wins",
        "moved behind TLS",
    )
    assert decided["resolved_by"] == "local" and decided["resolved_at"] is not None
    assert (await call(session, "contradictions", namespace=ns))["contradictions"] == []
    hits = (await call(session, "search", query="billing service port", namespace=ns))["hits"]
    assert next(h for h in hits if h["thought"]["id"] == older)["superseded_by"] == newer
    # Another decision on a decided contradiction is refused; the same one is a no-op.
    assert (
        await refused(
            session,
            "resolve_contradiction",
            contradiction_id=found["id"],
            resolution="a_wins",
            namespace=ns,
        )
        == "INVALID_STATE"
    )


# --- API keys ------------------------------------------------------------------------------


@pytest.fixture
def keys(tmp_path: Path, ns: str) -> tuple[KeyFile, dict[str, str]]:
    """A reader and a writer key, both for ``ns`` only."""
    keys = KeyFile(tmp_path / "keys.json")
    texts = {}
    for role in (Role.READER, Role.WRITER):
        _, text = keys.create(
            name=f"{role.value} of {ns}",
            namespaces=[ns],
            agent_id=f"{role.value}-bot",
            agent_name=f"{role.value.title()} Bot",
            role=role,
        )
        texts[role.value] = text
    return keys, texts


@pytest.fixture
def wiring_settings(
    request: pytest.FixtureRequest, engine: str, engine_settings: Callable[..., Settings]
) -> Settings:
    """The hash embedder (the process wiring is under test, not the model), at the
    dimension the suite's Neo4j schema was built with."""
    if engine == "neo4j":
        request.getfixturevalue("neo4j_store")
    return engine_settings(embedder=EmbedderKind.HASH, embedding_dimension=384)


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "0"},
    },
}
MCP_HEADERS = {"accept": "application/json, text/event-stream"}


async def _keys_decide_who_may_do_what(server: McpServer, texts: dict[str, str], ns: str) -> None:
    async with server.session(texts["reader"]) as reader:
        assert (await call(reader, "search", query="anything", namespace=ns))["hits"] == []
        code = await refused(reader, "contribute", content="Readers cannot write.", namespace=ns)
        assert code == "FORBIDDEN"
    async with server.session(texts["writer"]) as writer:
        written = await call(
            writer,
            "contribute",
            content="Writers write as their key's agent.",
            namespace=ns,
            agent_id="someone-else",
            agent_name="Someone Else",
        )
        assert (written["thought"]["agent_id"], written["thought"]["agent_name"]) == (
            "writer-bot",
            "Writer Bot",
        )
        code = await refused(writer, "contribute", content="x", namespace=f"{ns}-other")
        assert code == "FORBIDDEN"
        code = await refused(writer, "search", query="x", namespace=f"{ns}-other")
        assert code == "FORBIDDEN"
        assert await everything(writer, ns) == {written["thought"]["id"]}


def test_keys_over_http(
    wiring_settings: Settings,
    keys: tuple[KeyFile, dict[str, str]],
    tmp_path: Path,
    ns: str,
) -> None:
    key_file, texts = keys
    env = process_env(
        wiring_settings,
        TG_KEYS_FILE=str(key_file.path),
        TG_REQUIRE_KEYS="true",
        TG_MAX_REQUEST_BYTES="50000",
    )
    with mcp_server("http", env, tmp_path / "mcp.log") as server:
        assert server.url is not None
        with httpx.Client(timeout=30) as http:
            for headers in (
                {},
                {"authorization": "Bearer not-a-key"},
                {"authorization": "Bearer tgk_000000000000_" + "x" * 43},
            ):
                answer = http.post(server.url, json=INITIALIZE, headers=MCP_HEADERS | headers)
                assert answer.status_code == 401, answer.text
                assert answer.json()["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"
            # X-API-Key works as well as a bearer token; the probes need no key.
            answer = http.post(
                server.url, json=INITIALIZE, headers=MCP_HEADERS | {"x-api-key": texts["reader"]}
            )
            assert answer.status_code == 200, answer.text
            assert http.get(server.url.replace("/mcp", "/readyz")).status_code == 200
            # The request size limit of the GraphQL service applies.
            too_large = {**INITIALIZE, "padding": "x" * 60_000}
            answer = http.post(
                server.url,
                content=json.dumps(too_large),
                headers=MCP_HEADERS
                | {
                    "authorization": f"Bearer {texts['writer']}",
                    "content-type": "application/json",
                },
            )
            assert answer.status_code == 413, answer.text
            # Host and Origin are checked as GraphQL checks Host (DNS rebinding).
            reader = MCP_HEADERS | {"x-api-key": texts["reader"]}
            answer = http.post(server.url, json=INITIALIZE, headers=reader | {"host": "evil.test"})
            assert answer.status_code == 421, answer.text
            answer = http.post(
                server.url, json=INITIALIZE, headers=reader | {"origin": "http://evil.test"}
            )
            assert answer.status_code == 403, answer.text

        async def scenario() -> None:
            with pytest.raises(ExceptionGroup) as refusal:
                async with server.session(None):
                    pass
            # The SDK client reports the 401 as an error response to its initialize.
            assert [type(error) for error in leaves(refusal.value)] == [MCPError]
            await _keys_decide_who_may_do_what(server, texts, ns)

        asyncio.run(scenario())


def test_keys_over_stdio(
    wiring_settings: Settings,
    keys: tuple[KeyFile, dict[str, str]],
    tmp_path: Path,
    ns: str,
) -> None:
    """A stdio server acts with TG_MCP_KEY; with keys required it will not start without
    a valid one."""
    key_file, texts = keys
    log = tmp_path / "mcp.log"
    env = process_env(wiring_settings, TG_KEYS_FILE=str(key_file.path), TG_REQUIRE_KEYS="true")
    server = McpServer("stdio", env, log)

    async def scenario() -> None:
        for key in (None, "not-a-key"):
            with pytest.raises(ExceptionGroup) as refusal:
                async with server.session(key):
                    pass
            # The process exits before it answers the client's initialize.
            assert [str(error) for error in leaves(refusal.value)] == ["Connection closed"]
            assert "error [UNAUTHENTICATED]" in log.read_text()
        await _keys_decide_who_may_do_what(server, texts, ns)

    asyncio.run(scenario())


# --- one data dir, one owner -----------------------------------------------------------------


def test_attaches_to_the_engine_a_running_service_owns(tmp_path: Path, ns: str) -> None:
    data_dir = tmp_path / "data"
    with running_service(data_dir, TG_SERVE_WORKER="false") as (_, client, _):
        settings = Settings(data_dir=data_dir, embedder=EmbedderKind.HASH, embedding_dimension=64)
        log = tmp_path / "mcp.log"
        server = McpServer("stdio", process_env(settings, TG_SERVE_WORKER="false"), log)

        async def contribute() -> str:
            async with server.session() as session:
                written = await call(
                    session, "contribute", content="Written through MCP.", namespace=ns, **AGENT
                )
            return str(written["thought"]["id"])

        thought_id = asyncio.run(contribute())
        (ready,) = [event for event in log_events(log) if event["event"] == "mcp.ready"]
        assert ready["attached"] is True
        read = client.post(
            "/graphql",
            json={
                "query": "query($id: ID!, $ns: String!) "
                "{ thought(id: $id, namespace: $ns) { content agentId } }",
                "variables": {"id": thought_id, "ns": ns},
            },
        ).json()
        assert read["data"]["thought"] == {"content": "Written through MCP.", "agentId": "agent-1"}
        # The MCP process has stopped; the service and its engine carry on.
        assert client.get("/readyz").status_code == 200
