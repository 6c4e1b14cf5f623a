"""The MCP tool ``ingest_episode`` through the SDK's client, over streamable HTTP, on both
engines: turns become thoughts by their speakers, in the session, valid from their times;
a bad turn is a tool error that writes nothing."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest
from mcp.client.session import ClientSession

from tests.mcp_support import call, everything, mcp_server, process_env, refused
from thoughtgraph.features.episodes.turns import speaker_id
from thoughtgraph.settings import EmbedderKind, Settings

TURNS = [
    {
        "speaker": "Nora",
        "text": "My dog Biscuit has a vet appointment.",
        "at": "2024-06-03T09:00:00Z",
    },
    {"speaker": "Omar", "text": "Is Biscuit still limping?", "at": "2024-06-03T09:05:00Z"},
]


@pytest.fixture
def mcp_settings(
    request: pytest.FixtureRequest, engine: str, engine_settings: Callable[..., Settings]
) -> Settings:
    if engine == "neo4j":
        request.getfixturevalue("neo4j_store")  # the suite's schema record (test:, 384)
    return engine_settings(embedder=EmbedderKind.LOCAL)


def test_ingest_episode_turns_through_the_sdk_client(
    mcp_settings: Settings, tmp_path: Path, ns: str
) -> None:
    with mcp_server("http", process_env(mcp_settings), tmp_path / "mcp.log") as server:

        async def scenario() -> None:
            async with server.session() as session:
                await _bad_turns_write_nothing(session, ns)
                await _turns_become_thoughts(session, ns)

        asyncio.run(scenario())


async def _bad_turns_write_nothing(session: ClientSession, ns: str) -> None:
    bad = [TURNS[0], {**TURNS[1], "text": ""}]
    assert await refused(session, "ingest_episode", turns=bad, namespace=ns) == "VALIDATION_ERROR"
    both = {"turns": TURNS, "transcript": "Nora: hello there"}
    assert await refused(session, "ingest_episode", namespace=ns, **both) == "MUTUAL_EXCLUSION"
    assert await everything(session, ns) == set()


async def _turns_become_thoughts(session: ClientSession, ns: str) -> None:
    episode = await call(session, "ingest_episode", turns=TURNS, session_id="walks", namespace=ns)
    assert len(episode["thought_ids"]) == 2
    assert await everything(session, ns) == set(episode["thought_ids"])
    hits = (await call(session, "search", query="Biscuit the dog", namespace=ns, k=10))["hits"]
    by_id = {hit["thought"]["id"]: hit["thought"] for hit in hits}
    first, second = (by_id[tid] for tid in episode["thought_ids"])
    assert first["content"] == "Nora: My dog Biscuit has a vet appointment."
    assert (first["agent_id"], first["agent_name"]) == (speaker_id("Nora"), "Nora")
    assert (second["agent_id"], second["agent_name"]) == (speaker_id("Omar"), "Omar")
    assert first["valid_from"].startswith("2024-06-03T09:00")
    assert second["valid_from"].startswith("2024-06-03T09:05")
