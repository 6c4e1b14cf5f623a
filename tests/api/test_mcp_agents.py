"""What an agent reads from `thoughtgraph mcp`, through the SDK's client over stdio and
streamable HTTP on both engines: compact text (one line per item) beside structured
content that validates against the tool's output schema; the tools for topics, history,
forgetting and consolidation; the resources and the prompts, under the tools' key rules;
and one runtime (one embedding model) for every session of an HTTP server."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from mcp.client.session import ClientSession
from mcp.shared.exceptions import MCPError
from mcp_types import Tool

from tests.mcp_support import AGENT, call, mcp_server, process_env, refused
from tests.support import log_events
from thoughtgraph.features.context.tokens import TokenCounter
from thoughtgraph.llm.embedders.base import TextEmbedder
from thoughtgraph.runtime import open_runtime
from thoughtgraph.settings import EmbedderKind, Settings

UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
# A hit: its whole id, kind, date, markers, the content on one line, its score.
HIT_LINE = re.compile(
    rf"^(?P<id>{UUID}) (?P<kind>[a-z_]+) (?P<date>\d{{4}}-\d{{2}}-\d{{2}}) "
    r"(?P<markers>(?:\[[^\]]+\] )*)(?P<content>.+) \(score -?\d\.\d\d\)$"
)
NOTES = [  # ten thoughts about deploys and databases: two topics' worth
    "Deploys to production happen on Fridays after the release review.",
    "Production deploys happen on Tuesdays now, after the release review.",
    "Every production deploy needs a green pipeline and a rollback plan.",
    "The deploy pipeline runs the smoke tests before production.",
    "Rollbacks of a production deploy take about five minutes.",
    "The staging database moved to PostgreSQL 16.",
    "The production database runs PostgreSQL 15 until the upgrade in March.",
    "Database backups run nightly and are kept for thirty days.",
    "The database connection pool allows 200 connections per service.",
    "Long " + "database migration notes, " * 30 + "end.",
]


@pytest.fixture(params=("stdio", "http"))
def transport(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def agent_settings(
    request: pytest.FixtureRequest, engine: str, engine_settings: Callable[..., Settings]
) -> Settings:
    if engine == "neo4j":
        request.getfixturevalue("neo4j_store")  # the suite's schema record (test:, 384)
    return engine_settings(embedder=EmbedderKind.LOCAL)


def test_what_agents_read_through_the_sdk_client(
    transport: str,
    agent_settings: Settings,
    local_embedder: TextEmbedder,
    tmp_path: Path,
    ns: str,
) -> None:
    with mcp_server(transport, process_env(agent_settings), tmp_path / "mcp.log") as server:

        async def scenario() -> None:
            async with server.session() as session:
                tools = {tool.name: tool for tool in (await session.list_tools()).tools}
                ids = await _compact_search(session, tools, ns)
                await _forget_restore_history(session, tools, ns, ids)
                await _consolidation_and_topics(session, tools, ns, agent_settings, local_embedder)
            async with server.session() as session:  # a second session: a second process on stdio
                await _resources(session, ns, ids)
                await _prompts(session, ns)

        asyncio.run(scenario())
    if transport == "http":
        # Both sessions of the HTTP server used the process's one runtime: one model load.
        ready = [e for e in log_events(tmp_path / "mcp.log") if e.get("event") == "mcp.ready"]
        assert len(ready) == 1 and ready[0]["embedder"].startswith("local:"), ready


async def answer(
    session: ClientSession, tools: dict[str, Tool], tool: str, **arguments: Any
) -> tuple[str, dict[str, Any]]:
    """The tool's text and structured content; the latter valid by its output schema."""
    result = await session.call_tool(tool, arguments)
    assert not result.is_error, result.content
    assert result.structured_content is not None and len(result.content) == 1
    jsonschema.validate(result.structured_content, tools[tool].output_schema or {})
    return result.content[0].text, result.structured_content  # type: ignore[union-attr]


async def _compact_search(session: ClientSession, tools: dict[str, Tool], ns: str) -> list[str]:
    ids = []
    for note in NOTES:
        written = await call(session, "contribute", content=note, namespace=ns, **AGENT)
        ids.append(written["thought"]["id"])
    await call(session, "supersede", newer_id=ids[1], older_id=ids[0], reason="moved", namespace=ns)
    text, found = await answer(
        session, tools, "search", query="database", namespace=ns, k=10, threshold=-1.0
    )
    header, *lines = text.splitlines()
    assert header == "hits (10):" and len(lines) == len(found["hits"]) == 10
    for line, hit in zip(lines, found["hits"], strict=True):
        match = HIT_LINE.match(line)
        assert match, line
        thought = hit["thought"]
        assert (match["id"], match["kind"]) == (thought["id"], thought["kind"])
        assert match["date"] == thought["valid_from"][:10]
        assert ("[superseded]" in match["markers"]) == hit["superseded"], line
        content = match["content"]
        assert content == thought["content"] or (
            content.endswith("…") and thought["content"].startswith(content[:-1])
        )
        assert len(content) <= 201
    superseded = next(line for line in lines if line.startswith(ids[0]))
    assert "[superseded] Deploys to production happen on Fridays" in superseded
    # What the model reads costs a fraction of the JSON it read before.
    counter = TokenCounter()
    await counter.load()
    before = counter(json.dumps(found, indent=2))  # the text as it was: the shape's JSON
    assert counter(text) * 4 < before, (counter(text), before)
    await _recall_and_context(session, tools, ns)
    return ids


async def _recall_and_context(session: ClientSession, tools: dict[str, Tool], ns: str) -> None:
    text, found = await answer(
        session, tools, "recall", question="Which PostgreSQL does staging run?", namespace=ns
    )
    lines = text.splitlines()
    assert (
        lines[0] == f"answer (extractive, confidence {found['confidence']:.2f}): {found['answer']}"
    )
    assert f"sources: {', '.join(found['source_ids'])}" in lines
    assert (
        lines[-len(found["hits"]) :] == [line for line in lines if HIT_LINE.match(line)]
        and found["hits"]
    )
    text, assembled = await answer(
        session, tools, "assemble_context", query="production deploys", budget=300, namespace=ns
    )
    assert text.startswith(assembled["text"]) and text.endswith(
        f"({assembled['token_count']} of 300 tokens, {len(assembled['ids'])} thoughts; "
        f"revision {assembled['revision']})"
    )


async def _forget_restore_history(
    session: ClientSession, tools: dict[str, Tool], ns: str, ids: list[str]
) -> None:
    target = ids[7]
    text, forgotten = await answer(session, tools, "forget", thought_id=target, namespace=ns)
    assert forgotten["state"] == "soft_deleted" and "[forgotten]" in text
    hits = (await call(session, "search", query="nightly backups", namespace=ns))["hits"]
    assert target not in {hit["thought"]["id"] for hit in hits}
    text, restored = await answer(session, tools, "restore", thought_id=target, namespace=ns)
    assert restored["state"] == "active" and text.startswith(target)
    assert "[forgotten]" not in text
    text, history = await answer(session, tools, "history", thought_id=target, namespace=ns)
    assert [e["kind"] for e in history["events"]] == ["created", "soft_deleted", "restored"]
    assert text.splitlines()[0] == f"history of {target} (3):"
    assert re.match(
        rf"^rev \d+ \d{{4}}-\d\d-\d\d \d\d:\d\d restored thought {target} by ",
        text.splitlines()[-1],
    )
    revision = history["events"][0]["revision"]
    _, changed = await answer(session, tools, "changes", since_revision=revision, namespace=ns)
    kinds = [(e["kind"], e["subject_id"]) for e in changed["events"]]
    assert ("soft_deleted", target) in kinds and ("superseded", ids[0]) in kinds
    assert changed["revision"] >= changed["events"][-1]["revision"]
    unknown = "00000000-0000-4000-8000-00000000000f"
    assert await refused(session, "forget", thought_id=unknown, namespace=ns) == (
        "THOUGHT_NOT_FOUND"
    )
    assert await refused(session, "history", thought_id="x", namespace=ns) == "VALIDATION_ERROR"


async def _consolidation_and_topics(
    session: ClientSession,
    tools: dict[str, Tool],
    ns: str,
    settings: Settings,
    embedder: TextEmbedder,
) -> None:
    from thoughtgraph.features.consolidation.jobs import run_consolidation

    text, queued = await answer(session, tools, "run_consolidation", namespace=ns)
    assert (queued["status"], queued["trigger"], queued["dry_run"]) == ("queued", "mcp", False)
    assert text == f"consolidation run {queued['id']} queued"
    # What a worker does with it, here: attached to the engine the MCP process uses.
    async with open_runtime(settings, attach=True, embedder=embedder) as runtime:
        await run_consolidation(runtime, ns, queued["id"], dry_run=False)
    text, run = await answer(session, tools, "consolidation_run", run_id=queued["id"], namespace=ns)
    assert run["status"] == "succeeded" and run["counts"]["assigned"] > 0, run
    assert text.startswith(f"consolidation run {queued['id']} succeeded: ")
    assert f"assigned {run['counts']['assigned']}" in text
    text, listed = await answer(session, tools, "topics", namespace=ns)
    assert listed["topics"] and text.startswith(f"topics ({len(listed['topics'])}):")
    first = listed["topics"][0]
    assert f"{first['id']} {first['name']!r} {first['thought_count']} thoughts" in text
    text, members = await answer(session, tools, "topic", topic_id=first["id"], namespace=ns)
    assert members["topic"]["id"] == first["id"] and members["thoughts"]
    for thought in members["thoughts"]:
        assert f"\n{thought['id']} {thought['kind']} " in text
    assert await refused(session, "topic", topic_id="no-such-topic", namespace=ns) == "NOT_FOUND"
    assert await refused(session, "consolidation_run", run_id="nope", namespace=ns) == "NOT_FOUND"


async def _resources(session: ClientSession, ns: str, ids: list[str]) -> None:
    listed = {str(r.uri) for r in (await session.list_resources()).resources}
    assert listed == {
        "thoughtgraph://namespaces/default/topics",
        "thoughtgraph://namespaces/default/session-start",
    }
    templates = {
        t.uri_template for t in (await session.list_resource_templates()).resource_templates
    }
    assert "thoughtgraph://thoughts/{thought_id}{?namespace}" in templates
    topics = (await session.read_resource(f"thoughtgraph://namespaces/{ns}/topics")).contents[0]
    assert topics.text.startswith("topics (")  # type: ignore[union-attr]
    block = (await session.read_resource(f"thoughtgraph://namespaces/{ns}/session-start")).contents
    text = block[0].text  # type: ignore[union-attr]
    assert text.startswith('<thoughtgraph-memory version="') and f'namespace="{ns}"' in text
    assert "Production deploys happen on Tuesdays now" in text
    long_one = ids[-1]
    read = await session.read_resource(f"thoughtgraph://thoughts/{long_one}?namespace={ns}")
    first_line, _, content = read.contents[0].text.partition("\n\n")  # type: ignore[union-attr]
    assert first_line.startswith(f"{long_one} fact ") and content == NOTES[-1]
    unknown = "00000000-0000-4000-8000-00000000000f"
    with pytest.raises(MCPError) as refusal:
        await session.read_resource(f"thoughtgraph://thoughts/{unknown}?namespace={ns}")
    assert refusal.value.error.data == {
        "code": "THOUGHT_NOT_FOUND",
        "message": f"Thought(s) not found: {unknown}",
    }


async def _prompts(session: ClientSession, ns: str) -> None:
    prompts = {p.name: p for p in (await session.list_prompts()).prompts}
    assert set(prompts) == {"remember_conversation", "what_changed_since"}
    assert [a.name for a in prompts["what_changed_since"].arguments or []] == [
        "revision",
        "namespace",
    ]
    got = await session.get_prompt(
        "remember_conversation", {"conversation": "Ana: we use Go now.", "namespace": ns}
    )
    text = got.messages[0].content.text  # type: ignore[union-attr]
    assert f'namespace "{ns}"' in text and text.endswith("Ana: we use Go now.")
    got = await session.get_prompt("what_changed_since", {"revision": "0", "namespace": ns})
    text = got.messages[0].content.text  # type: ignore[union-attr]
    assert "soft_deleted thought" in text and "restored thought" in text
    with pytest.raises(MCPError) as refusal:
        await session.get_prompt("what_changed_since", {"revision": "yesterday", "namespace": ns})
    assert refusal.value.error.data["code"] == "VALIDATION_ERROR"
