"""Asking for insights through the interfaces, on both engines: requestInsights over
GraphQL (real HTTP, API keys) and request_insights over MCP (stdio). These services run no
worker, so nothing is queued and both answer false; a reader's key, or a key of another
namespace, is refused (FORBIDDEN). The job itself runs in tests/features/insights, and
queued through the API on a real worker in tests/processes/test_insights_worker.py."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.api.test_api_keys import Keyed, codes
from tests.mcp_support import call, keyed_env, mcp_server, refused
from tests.support import GraphQLClient, serve_in_thread
from thoughtgraph.api.keyfile import KeyFile
from thoughtgraph.domain.access import Role
from thoughtgraph.llm.embedders.base import TextEmbedder
from thoughtgraph.server import create_app
from thoughtgraph.settings import EmbedderKind, Settings

REQUEST = "mutation($ns: String!) { requestInsights(namespace: $ns) }"
ROLES = (Role.READER, Role.WRITER)


def role_keys(keys: KeyFile, ns: str) -> tuple[dict[str, str], dict[str, str]]:
    texts, ids = {}, {}
    for role in ROLES:
        key, text = keys.create(
            name=f"{role.value} of {ns}",
            namespaces=[ns],
            agent_id=f"{role.value}-bot",
            agent_name=role.value,
            role=role,
        )
        texts[role.value], ids[role.value] = text, key.key_id
    return texts, ids


@pytest.fixture
def keyed(
    engine_settings: Callable[..., Settings],
    local_embedder: TextEmbedder,
    tmp_path: Path,
    ns: str,
) -> Iterator[Keyed]:
    keys = KeyFile(tmp_path / "keys.json")
    texts, ids = role_keys(keys, ns)
    settings = engine_settings(embedder=EmbedderKind.LOCAL, keys_file=keys.path)
    with serve_in_thread(create_app(settings, embedder=local_embedder)) as base_url:
        api = GraphQLClient(base_url)
        try:
            yield Keyed(api, keys, texts, ids)
        finally:
            api.close()


def test_request_insights_needs_write_access_and_queues_nothing_without_a_worker(
    keyed: Keyed, ns: str
) -> None:
    writer, reader = keyed.texts["writer"], keyed.texts["reader"]
    assert keyed.body(REQUEST, writer, ns=ns) == {"data": {"requestInsights": False}}
    assert codes(keyed.body(REQUEST, reader, ns=ns)) == ["FORBIDDEN"]
    assert codes(keyed.body(REQUEST, writer, ns=ns + "-other")) == ["FORBIDDEN"]
    assert codes(keyed.body("mutation { requestInsights }", writer)) == ["FORBIDDEN"]  # default


def test_request_insights_over_mcp(
    engine_settings: Callable[..., Settings],
    tmp_path: Path,
    ns: str,
    request: pytest.FixtureRequest,
) -> None:
    keys = KeyFile(tmp_path / "keys.json")
    texts, _ = role_keys(keys, ns)
    env = keyed_env(engine_settings, request, keys)

    async def scenario() -> None:
        with mcp_server("stdio", env, tmp_path / "mcp.log") as server:
            async with server.session(texts["writer"]) as writer:
                assert await call(writer, "request_insights", namespace=ns) == {"queued": False}
            async with server.session(texts["reader"]) as reader:
                code = await refused(reader, "request_insights", namespace=ns)
                assert code == "FORBIDDEN"

    asyncio.run(scenario())
