"""Policy is applied once, in the services: the same forbidden read through GraphQL and
through MCP is refused with the same code and message, raised by the same service method
(a third interface gets the policy by calling the service, not by copying it)."""

from __future__ import annotations

import asyncio
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.api.test_allowlist import POLICY, write
from tests.mcp_support import mcp_server, process_env
from tests.support import GraphQLClient, LoopThread, serve_in_thread
from thoughtgraph.api.keyfile import KeyFile
from thoughtgraph.container import build_services
from thoughtgraph.domain.access import Principal, Role
from thoughtgraph.domain.allowlist import load_allowlist
from thoughtgraph.domain.errors import ThoughtgraphError
from thoughtgraph.features.repositories import Repositories
from thoughtgraph.server import create_app
from thoughtgraph.settings import EmbedderKind, Settings

SEARCH = """query($ns: String!, $agent: String, $categories: [String!]) {
  search(namespace: $ns, query: "what next", agent: $agent, filter: {categories: $categories})
  { thought { id } } }"""
ASSEMBLE = """query($ns: String!, $agent: String) {
  assembleContext(namespace: $ns, signals: {query: "what next", agent: $agent}) { text } }"""
# Each forbidden read, as GraphQL variables and as MCP tool arguments.
FORBIDDEN: list[tuple[str, str, str, dict[str, Any]]] = [
    ("outside the allowlist", SEARCH, "search", {"categories": ["profile"]}),
    ("posing as another agent", SEARCH, "search", {"agent": "supervisor"}),
    ("another agent's context", ASSEMBLE, "assemble_context", {"agent": "supervisor"}),
    ("another namespace", SEARCH, "search", {"namespace": "not-the-keys"}),
]
ASKED = {"query": "what next"}  # what the GraphQL documents ask, as MCP arguments


def _variables(ns: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """The MCP arguments as the GraphQL documents' variables (the namespace is $ns)."""
    return {"ns": ns} | {("ns" if k == "namespace" else k): v for k, v in arguments.items()}


def _error(body: dict[str, Any]) -> tuple[str, str]:
    (error,) = body["errors"]
    return str(error["extensions"]["code"]), str(error["message"])


@pytest.fixture
def planner_key(tmp_path: Path, ns: str) -> tuple[Path, str]:
    """A key bound to the allowlist agent `planner` (tasks and procedural only)."""
    keys = KeyFile(tmp_path / "keys.json")
    _, text = keys.create(
        name="planner",
        namespaces=[ns],
        agent_id="planner-bot",
        agent_name="Planner",
        role=Role.WRITER,
        agent="planner",
    )
    return keys.path, text


@pytest.fixture
def policy_settings(
    request: pytest.FixtureRequest,
    engine: str,
    engine_settings: Callable[..., Settings],
    planner_key: tuple[Path, str],
    tmp_path: Path,
) -> Settings:
    if engine == "neo4j":
        request.getfixturevalue("neo4j_store")
    return engine_settings(
        embedder=EmbedderKind.HASH,
        embedding_dimension=384,
        keys_file=planner_key[0],
        allowlist_file=write(tmp_path, POLICY),
    )


@pytest.fixture
def graphql_answers(
    policy_settings: Settings, planner_key: tuple[Path, str], ns: str
) -> Iterator[list[tuple[str, str]]]:
    headers = {"authorization": f"Bearer {planner_key[1]}"}
    with serve_in_thread(create_app(policy_settings)) as base_url:
        client = GraphQLClient(base_url)
        try:
            yield [
                _error(client.post(document, headers=headers, **_variables(ns, arguments)).json())
                for _, document, _, arguments in FORBIDDEN
            ]
        finally:
            client.close()


async def _mcp_answers(env: dict[str, str], key: str, log: Path, ns: str) -> list[tuple[str, str]]:
    answers = []
    with mcp_server("stdio", env, log) as server:
        async with server.session(key) as session:
            for _, _, tool, arguments in FORBIDDEN:
                result = await session.call_tool(tool, {"namespace": ns, **ASKED, **arguments})
                assert result.is_error and result.structured_content is not None
                answers.append(
                    (
                        str(result.structured_content["code"]),
                        str(result.structured_content["message"]),
                    )
                )
    return answers


def test_graphql_and_mcp_refuse_the_same_read_the_same_way(
    graphql_answers: list[tuple[str, str]],
    policy_settings: Settings,
    planner_key: tuple[Path, str],
    tmp_path: Path,
    ns: str,
) -> None:
    mcp_settings = policy_settings.model_copy(update={"data_dir": tmp_path / "mcp-data"})
    env = process_env(
        mcp_settings,
        TG_KEYS_FILE=str(planner_key[0]),
        TG_ALLOWLIST_FILE=str(policy_settings.allowlist_file),
    )
    mcp = asyncio.run(_mcp_answers(env, planner_key[1], tmp_path / "mcp.log", ns))
    assert [code for code, _ in graphql_answers] == [
        "CATEGORY_NOT_ALLOWED",
        "AGENT_MISMATCH",
        "AGENT_MISMATCH",
        "FORBIDDEN",
    ]
    assert mcp == graphql_answers


def test_the_refusal_comes_from_the_service(
    loop: LoopThread, falkordb_store: Any, tmp_path: Path, ns: str
) -> None:
    """Called directly, with no interface at all, the search service refuses the same read
    itself: the policy is in the service's path, not in a resolver."""
    from thoughtgraph.llm.embedders.hashing import HashEmbedder

    settings = Settings(data_dir=tmp_path, allowlist_file=write(tmp_path, POLICY))
    services = build_services(falkordb_store, HashEmbedder(384), settings=settings)
    assert isinstance(services.repos, Repositories)
    assert load_allowlist(settings.allowlist_file).configured
    planner = Principal(agent="planner")
    with pytest.raises(ThoughtgraphError) as refused:
        loop.run(services.search.search_for(planner, ns, "what next", agent="supervisor"))
    assert refused.value.code == "AGENT_MISMATCH"
    frames = [frame.f_code.co_filename for frame, _ in traceback.walk_tb(refused.tb)]
    assert any(name.endswith("features/search/service.py") for name in frames), frames
