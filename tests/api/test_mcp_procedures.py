"""The MCP tools of procedural memory through the SDK's client, over streamable HTTP, on
both engines: a workflow recorded and refined, code patterns extracted from the shipped
code base, listed and read back in full; each answer's compact text and its structured
content (valid by the tool's output schema); bad input a coded tool error that writes
nothing."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from mcp.client.session import ClientSession
from mcp_types import Tool

from tests.mcp_support import AGENT, call, mcp_server, process_env, refused
from thoughtgraph.settings import EmbedderKind, Settings

CODEBASE = Path(__file__).parents[1] / "fixtures" / "codebase"
UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
STEPS = [
    {"text": "test", "detail": "pnpm test --coverage"},
    {"text": "build", "detail": "docker build -t app:$SHA ."},
    {"text": "stage"},
    {"text": "verify"},
    {"text": "prod"},
]
PATTERN_HINTS = {
    "endpoint: post→load→try/except→jsonify",
    "endpoint: post→validate→try/catch→json",
    "endpoint: put→parse→try/catch→json",
}


@pytest.fixture
def mcp_settings(
    request: pytest.FixtureRequest, engine: str, engine_settings: Callable[..., Settings]
) -> Settings:
    if engine == "neo4j":
        request.getfixturevalue("neo4j_store")  # the suite's schema record (test:, 384)
    return engine_settings(embedder=EmbedderKind.LOCAL)


def codebase() -> list[dict[str, str]]:
    """The shipped code base's Python, JavaScript and TypeScript files, as the tool takes
    them."""
    return [
        {"path": path.relative_to(CODEBASE).as_posix(), "content": path.read_text()}
        for path in sorted(CODEBASE.rglob("*"))
        if path.suffix in {".py", ".js", ".ts", ".tsx"}
    ]


def test_procedures_through_the_sdk_client(mcp_settings: Settings, tmp_path: Path, ns: str) -> None:
    with mcp_server("http", process_env(mcp_settings), tmp_path / "mcp.log") as server:

        async def scenario() -> None:
            async with server.session() as session:
                tools = {tool.name: tool for tool in (await session.list_tools()).tools}
                await _bad_input_writes_nothing(session, ns)
                first, refined = await _workflow_and_refinement(session, tools, ns)
                await _listed_and_read_back(session, tools, ns, first, refined)
                await _patterns_from_the_codebase(session, tools, ns)

        asyncio.run(scenario())


async def answer(
    session: ClientSession, tools: dict[str, Tool], tool: str, **arguments: Any
) -> tuple[str, dict[str, Any]]:
    """The tool's text and structured content; the latter valid by its output schema."""
    result = await session.call_tool(tool, arguments)
    assert not result.is_error, result.content
    assert result.structured_content is not None and len(result.content) == 1
    jsonschema.validate(result.structured_content, tools[tool].output_schema or {})
    return result.content[0].text, result.structured_content  # type: ignore[union-attr]


async def revision(session: ClientSession, ns: str) -> int:
    return int((await call(session, "changes", since_revision=0, namespace=ns))["revision"])


async def _bad_input_writes_nothing(session: ClientSession, ns: str) -> None:
    before = await revision(session, ns)
    empty = {"trigger": "deploy", "steps": [], "namespace": ns, **AGENT}
    assert await refused(session, "record_workflow", **empty) == "VALIDATION_ERROR"
    unnamed = {"trigger": "deploy", "steps": STEPS, "namespace": ns}
    assert await refused(session, "record_workflow", **unnamed) == "VALIDATION_ERROR"
    bad_file = [{"path": "notes.txt", "content": "hello"}]
    extract = {"files": bad_file, "namespace": ns, **AGENT}
    assert await refused(session, "extract_patterns", **extract) == "UNSUPPORTED_LANGUAGE"
    no_model = {"episode_id": "episode-1", "namespace": ns, **AGENT}
    assert await refused(session, "workflow_from_episode", **no_model) == "LLM_NOT_CONFIGURED"
    listed = await call(session, "procedures", kind="workflow", include_retired=True, namespace=ns)
    assert listed["procedures"] == [] and await revision(session, ns) == before


async def _workflow_and_refinement(
    session: ClientSession, tools: dict[str, Tool], ns: str
) -> tuple[dict[str, Any], dict[str, Any]]:
    text, recorded = await answer(
        session, tools, "record_workflow", trigger="deploy", steps=STEPS, namespace=ns, **AGENT
    )
    first = recorded["procedure"]
    assert first["kind"] == "workflow" and first["hint"] == "deploy: test→build→stage→verify→prod"
    assert first["steps"][0] == {"text": "test", "detail": "pnpm test --coverage"}
    assert first["thought"]["category"] == "procedural" and first["template"] == []
    date = first["thought"]["valid_from"][:10]
    assert text == f"stored: {first['id']} workflow {date} deploy: test→build→stage→verify→prod"
    assert re.fullmatch(UUID, first["id"])

    steps = [*STEPS[:4], {"text": "announce", "detail": "post in #deploys"}, STEPS[4]]
    text, recorded = await answer(
        session,
        tools,
        "record_workflow",
        trigger="deploy",
        steps=steps,
        refines=first["id"],
        reason="announce before prod",
        namespace=ns,
        **AGENT,
    )
    refined = recorded["procedure"]
    assert refined["thought"]["type"] == "refinement"
    assert refined["thought"]["source_ids"] == [first["id"]]
    assert text.endswith(" deploy: test→build→stage→verify→announce→prod")
    # A pattern is not a workflow: refining one with the other is refused, nothing written.
    before = await revision(session, ns)
    wrong = {"trigger": "x", "template": [{"slot": "route", "value": "@app.post"}]}
    code = await refused(
        session, "record_pattern", refines=first["id"], namespace=ns, **wrong, **AGENT
    )
    assert code == "VALIDATION_ERROR" and await revision(session, ns) == before
    return first, refined


async def _listed_and_read_back(
    session: ClientSession,
    tools: dict[str, Tool],
    ns: str,
    first: dict[str, Any],
    refined: dict[str, Any],
) -> None:
    text, listed = await answer(session, tools, "procedures", kind="workflow", namespace=ns)
    assert [p["id"] for p in listed["procedures"]] == [refined["id"]]
    date = refined["thought"]["valid_from"][:10]
    line = f"{refined['id']} workflow {date} deploy: test→build→stage→verify→announce→prod"
    assert text == f"procedures (1):\n{line}"
    _, everything = await answer(
        session, tools, "procedures", kind="workflow", include_retired=True, namespace=ns
    )
    assert {p["id"] for p in everything["procedures"]} == {first["id"], refined["id"]}

    text, found = await answer(session, tools, "procedure", id=refined["id"], namespace=ns)
    assert found["procedure"]["steps"] == refined["steps"]
    assert text.splitlines() == [
        line,
        "when: deploy",
        "1. test (pnpm test --coverage)",
        "2. build (docker build -t app:$SHA .)",
        "3. stage",
        "4. verify",
        "5. announce (post in #deploys)",
        "6. prod",
    ]
    missing = "00000000-0000-4000-8000-000000000000"
    text, found = await answer(session, tools, "procedure", id=missing, namespace=ns)
    assert found == {"procedure": None} and text == "procedure: none"


async def _patterns_from_the_codebase(
    session: ClientSession, tools: dict[str, Tool], ns: str
) -> None:
    files = codebase()
    text, found = await answer(
        session, tools, "extract_patterns", files=files, namespace=ns, **AGENT
    )
    assert found["files"] == len(files) == 9 and found["created"] == 3
    assert {p["hint"] for p in found["patterns"]} == PATTERN_HINTS
    header, *lines = text.splitlines()
    assert header == f"patterns from 9 files, {found['functions']} functions, 3 new (3):"
    for line, pattern in zip(lines, found["patterns"], strict=True):
        date = pattern["thought"]["valid_from"][:10]
        assert line == f"{pattern['id']} code_pattern {date} {pattern['hint']}"

    python = next(p for p in found["patterns"] if "jsonify" in p["hint"])
    assert python["files"] == ["api/orders.py", "api/users.py"]
    text, _ = await answer(session, tools, "procedure", id=python["id"], namespace=ns)
    assert text.splitlines()[1:] == [
        "when: new python post endpoint",
        "route: @*.post(path)",
        "validation: *.load(input)",
        "error_handling: try/except ValidationError → 400",
        "response: jsonify({data}), 201",
        "seen in: api/orders.py, api/users.py",
    ]
    _, listed = await answer(session, tools, "procedures", kind="code_pattern", namespace=ns)
    assert {p["id"] for p in listed["procedures"]} == {p["id"] for p in found["patterns"]}

    # The same code again: the stored patterns, nothing written.
    before = await revision(session, ns)
    _, again = await answer(session, tools, "extract_patterns", files=files, namespace=ns, **AGENT)
    assert again["created"] == 0 and await revision(session, ns) == before
    assert [p["id"] for p in again["patterns"]] == [p["id"] for p in found["patterns"]]
