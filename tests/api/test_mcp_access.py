"""`thoughtgraph mcp` and API keys, over streamable HTTP and stdio on both engines (the
keys, roles and namespaces of the GraphQL service; its request hygiene), and the one owner
of an embedded data dir: the MCP process attaches to the engine a running
`thoughtgraph serve` owns."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from mcp.client.session import ClientSession
from mcp.shared.exceptions import MCPError

from tests.mcp_support import (
    AGENT,
    McpServer,
    call,
    everything,
    leaves,
    mcp_server,
    process_env,
    refused,
)
from tests.processes.test_serve_process import running_service
from tests.support import log_events
from thoughtgraph.api.keyfile import KeyFile
from thoughtgraph.domain.access import Role
from thoughtgraph.settings import EmbedderKind, Settings

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
# Room for one long thought in an answer (whole in the structured content, a line of it
# in the text), not for three.
RESPONSE_CAP = "8000"


async def _keys_decide_who_may_do_what(server: McpServer, texts: dict[str, str], ns: str) -> None:
    async with server.session(texts["reader"]) as reader:
        assert (await call(reader, "search", query="anything", namespace=ns))["hits"] == []
        code = await refused(reader, "contribute", content="Readers cannot write.", namespace=ns)
        assert code == "FORBIDDEN"
        await _resources_and_prompts_follow_the_keys(reader, ns)
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
        # GraphQL's response cap (TG_MAX_RESPONSE_BYTES, set by the tests) applies too.
        long_note = "Long note: " + "word " * 600
        for _ in range(3):
            await call(writer, "contribute", content=long_note, namespace=ns)
        code = await refused(writer, "search", query="long note", namespace=ns, k=100)
        assert code == "RESPONSE_TOO_LARGE"
        one = await call(writer, "search", query="long note", namespace=ns, k=1)
        assert len(one["hits"]) == 1


async def _resources_and_prompts_follow_the_keys(reader: ClientSession, ns: str) -> None:
    """A reader key: the tools' rules hold for resources and prompts too."""
    topics = await reader.read_resource(f"thoughtgraph://namespaces/{ns}/topics")
    assert topics.contents[0].text == "topics: none"  # type: ignore[union-attr]
    assert await refused(reader, "run_consolidation", namespace=ns) == "FORBIDDEN"
    other = f"{ns}-other"
    for uri in (
        f"thoughtgraph://namespaces/{other}/topics",
        f"thoughtgraph://namespaces/{other}/session-start",
        f"thoughtgraph://thoughts/00000000-0000-4000-8000-00000000000f?namespace={other}",
    ):
        with pytest.raises(MCPError) as refusal:
            await reader.read_resource(uri)
        assert refusal.value.error.data["code"] == "FORBIDDEN", uri
    with pytest.raises(MCPError) as refusal:
        await reader.get_prompt("what_changed_since", {"revision": "0", "namespace": other})
    assert refusal.value.error.data["code"] == "FORBIDDEN"


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
        TG_MAX_RESPONSE_BYTES=RESPONSE_CAP,
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
    env = process_env(
        wiring_settings,
        TG_KEYS_FILE=str(key_file.path),
        TG_REQUIRE_KEYS="true",
        TG_MAX_RESPONSE_BYTES=RESPONSE_CAP,
    )
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
