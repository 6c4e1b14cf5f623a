"""`thoughtgraph mcp` as a real process, through the MCP SDK's own client, over stdio (the
client spawns it) and streamable HTTP, on both engines: its tools call the services
GraphQL calls, and a failure is a tool error with a code that writes nothing."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp.client.session import ClientSession

from tests.mcp_support import AGENT, call, everything, mcp_server, process_env, refused
from thoughtgraph.llm.embedders.base import TextEmbedder
from thoughtgraph.runtime import open_runtime
from thoughtgraph.settings import EmbedderKind, Settings

TOOLS = {
    "search",
    "lineage",
    "contribute",
    "refine",
    "supersede",
    "contradictions",
    "resolve_contradiction",
    "recall",
    "assemble_context",
    "ingest_episode",
    "propose_merge",
    "decide_merge",
    "consent_requests",
    "approve_consent",
    "reject_consent",
    "request_insights",
    "save_checkpoint",
    "load_checkpoint",
    "list_checkpoints",
    "delete_checkpoint_thread",
    "forget",
    "restore",
    "history",
    "changes",
    "topics",
    "topic",
    "run_consolidation",
    "consolidation_run",
    "record_workflow",
    "workflow_from_episode",
    "record_pattern",
    "extract_patterns",
    "procedures",
    "procedure",
}

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
    from thoughtgraph.features.contradictions.jobs import scan_thoughts

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
                await _checkpoints(session, ns)
                await _supersede(session, ns)
                await _bad_input_writes_nothing(session, ns)
                moved = await _recall(session, ns)
                await _assemble(session, ns, moved)
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


async def _checkpoints(session: ClientSession, ns: str) -> None:
    args = {"namespace": ns, "thread_id": "run-1"}
    assert await call(session, "load_checkpoint", **args) == {"checkpoint": None}
    first = await call(session, "save_checkpoint", data='{"step": 1}', checkpoint_id="a", **args)
    assert (first["id"], first["parent_id"], first["size_bytes"]) == ("a", None, 11)
    await call(
        session, "save_checkpoint", data='{"step": 2}', checkpoint_id="b", parent_id="a", **args
    )
    newest = await call(session, "load_checkpoint", **args)
    assert newest["checkpoint"]["id"] == "b" and newest["checkpoint"]["parent_id"] == "a"
    by_id = await call(session, "load_checkpoint", checkpoint_id="a", **args)
    assert by_id["checkpoint"]["data"] == '{"step": 1}'
    listed = await call(session, "list_checkpoints", **args)
    assert [c["id"] for c in listed["checkpoints"]] == ["b", "a"]
    older = await call(session, "list_checkpoints", before="b", **args)
    assert [c["id"] for c in older["checkpoints"]] == ["a"]
    assert await refused(session, "save_checkpoint", data="[1]", **args) == "VALIDATION_ERROR"
    assert await refused(session, "save_checkpoint", data="{}", parent_id="zz", **args) == (
        "NOT_FOUND"
    )


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


async def _recall(session: ClientSession, ns: str) -> str:
    written = await call(
        session,
        "contribute",
        content="Yesterday we moved the staging database to PostgreSQL 16.",
        valid_from="2024-03-05T10:00:00Z",
        namespace=ns,
        **AGENT,
    )
    moved = written["thought"]["id"]
    found = await call(
        session, "recall", question="When did we move the staging database?", namespace=ns
    )
    assert found["temporal"] and found["answered_by"] == "extractive"  # no model configured
    assert found["hits"][0]["thought"]["id"] == moved
    assert set(found["source_ids"]) <= {hit["thought"]["id"] for hit in found["hits"]}
    (resolved,) = [r for r in found["resolutions"] if r["thought_id"] == moved]
    assert (resolved["expression"].lower(), resolved["date"]) == ("yesterday", "2024-03-04")
    assert await refused(session, "recall", question="x", k=26, namespace=ns) == (
        "VALIDATION_ERROR"
    )
    return str(moved)


async def _assemble(session: ClientSession, ns: str, moved: str) -> None:
    assembled = await call(
        session,
        "assemble_context",
        namespace=ns,
        budget=400,
        query="staging database migration",
        activity="debugging",
    )
    assert 0 < assembled["token_count"] <= assembled["budget"] == 400
    assert moved in assembled["ids"] and "PostgreSQL 16" in assembled["text"]
    assert [t["tier"] for t in assembled["tiers"]] == [1, 2, 3, 4]
    assert sum(t["tokens"] for t in assembled["tiers"]) <= assembled["token_count"]
    assert await refused(session, "assemble_context", namespace=ns, budget=-5) == (
        "VALIDATION_ERROR"
    )


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
