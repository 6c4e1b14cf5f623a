"""`thoughtgraph mcp` driven by the official MCP Inspector CLI (npm, pinned in
tests/mcp_inspector; `scripts/dev test` installs it) over stdio and streamable HTTP, on
both engines: it lists the tools, resources and prompts, calls the tools, reads the
resources and gets a prompt; each answer's text is compact and its structured content
valid by the output schema the Inspector listed."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tests.api.test_mcp import TOOLS
from tests.api.test_mcp_agents import HIT_LINE
from tests.mcp_support import McpServer, mcp_server, process_env
from tests.support import THOUGHTGRAPH_CLI, skip_or_fail
from thoughtgraph.domain.errors import DataDirLockedError
from thoughtgraph.settings import EmbedderKind, Settings
from thoughtgraph.store.factory import check_store_available

ROOT = Path(__file__).resolve().parents[2]
INSPECTOR = ROOT / "tests" / "mcp_inspector" / "node_modules" / "@modelcontextprotocol"
# The CLI finds its own package.json relative to the working directory: run it from its
# build directory.
INSPECTOR_BUILD = INSPECTOR / "inspector-cli" / "build"
AGENT_ARGS = ("agent_id=agent-1", "agent_name=Agent One")


@pytest.fixture(params=("stdio", "http"))
def transport(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def inspector_settings(
    request: pytest.FixtureRequest, engine: str, engine_settings: Callable[..., Settings]
) -> Settings:
    """The hash embedder (a stdio server starts per Inspector call; the model is the SDK
    client tests' concern), at the dimension of the suite's Neo4j schema."""
    if not (INSPECTOR_BUILD / "cli.js").is_file():
        skip_or_fail("tests/mcp_inspector/node_modules is absent: scripts/dev test installs it")
    if engine == "neo4j":
        request.getfixturevalue("neo4j_store")
    return engine_settings(embedder=EmbedderKind.HASH, embedding_dimension=384)


class Inspector:
    """The Inspector CLI against one server: a command it spawns, or an HTTP URL."""

    def __init__(self, server: McpServer, settings: Settings) -> None:
        self.server = server
        self.settings = settings
        self.tools: dict[str, dict[str, Any]] = {}

    def __call__(self, method: str, *args: str) -> dict[str, Any]:
        if self.server.transport == "stdio":  # it passes its environment on to the server
            # Its stderr into the test's log (the CLI would swallow it).
            server = shlex.join([*THOUGHTGRAPH_CLI, "mcp"])
            target = ["sh", "-c", f"exec {server} 2>>{shlex.quote(str(self.server.log))}"]
            self._wait_for_the_last_server()
        else:
            assert self.server.url is not None
            target = [self.server.url, "--transport", "http"]
        command = ["node", "cli.js", "--cli", *target, "--method", method, *args]
        done = subprocess.run(
            command,
            cwd=INSPECTOR_BUILD,
            env=self.server.env,
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
        )
        assert done.returncode == 0, (method, args, done.stdout[-2000:], done.stderr[-4000:])
        answer: dict[str, Any] = json.loads(done.stdout)
        return answer

    def _wait_for_the_last_server(self) -> None:
        """The CLI exits without waiting for the server it spawned to stop: on the
        embedded engine, the next server would find the data dir still held and attach
        to an engine about to stop. Wait until the last one let go of it."""
        deadline = time.monotonic() + 60
        while True:
            try:
                check_store_available(self.settings)
                return
            except DataDirLockedError:
                assert time.monotonic() < deadline, "the last server kept the data dir"
                time.sleep(0.2)

    def call(self, tool: str, *args: str) -> tuple[str, dict[str, Any]]:
        """A tool's text and structured content, the latter valid by its output schema."""
        answer = self("tools/call", "--tool-name", tool, *(("--tool-arg", *args) if args else ()))
        assert not answer.get("isError"), answer
        (content,) = answer["content"]
        structured = answer["structuredContent"]
        jsonschema.validate(structured, self.tools[tool]["outputSchema"])
        return content["text"], structured


def test_the_inspector_cli(
    transport: str, inspector_settings: Settings, tmp_path: Path, ns: str
) -> None:
    with mcp_server(transport, process_env(inspector_settings), tmp_path / "mcp.log") as server:
        inspector = Inspector(server, inspector_settings)
        _lists(inspector)
        first, second = _tools(inspector, ns)
        _resources(inspector, ns, first)
        _prompt(inspector, ns, second)


def _lists(inspector: Inspector) -> None:
    inspector.tools = {tool["name"]: tool for tool in inspector("tools/list")["tools"]}
    assert set(inspector.tools) == TOOLS
    assert all(tool.get("outputSchema") for tool in inspector.tools.values())
    resources = {r["uri"] for r in inspector("resources/list")["resources"]}
    assert "thoughtgraph://namespaces/default/session-start" in resources
    templates = inspector("resources/templates/list")["resourceTemplates"]
    assert {t["uriTemplate"] for t in templates} == {
        "thoughtgraph://namespaces/{namespace}/topics",
        "thoughtgraph://namespaces/{namespace}/session-start",
        "thoughtgraph://thoughts/{thought_id}{?namespace}",
    }
    prompts = {p["name"] for p in inspector("prompts/list")["prompts"]}
    assert prompts == {"remember_conversation", "what_changed_since"}


def _tools(inspector: Inspector, ns: str) -> tuple[str, str]:
    space = f"namespace={ns}"
    text, older = inspector.call(
        "contribute", "content=Deploys happen on Fridays.", space, *AGENT_ARGS
    )
    first = older["thought"]["id"]
    assert (
        text
        == f"stored: {first} fact {older['thought']['valid_from'][:10]} Deploys happen on Fridays."
    )
    _, newer = inspector.call(
        "contribute", "content=Deploys happen on Tuesdays now.", space, *AGENT_ARGS
    )
    second = newer["thought"]["id"]
    inspector.call("supersede", f"newer_id={second}", f"older_id={first}", "reason=moved", space)
    text, found = inspector.call("search", "query=when do deploys happen?", space)
    lines = text.splitlines()
    assert lines[0] == f"hits ({len(found['hits'])}):"
    matches = [HIT_LINE.match(line) for line in lines[1:]]
    assert all(matches), lines
    by_id = {m["id"]: m for m in matches if m}
    assert by_id[first]["markers"] == "[superseded] " and by_id[second]["markers"] == ""
    text, forgotten = inspector.call("forget", f"thought_id={first}", space)
    assert forgotten["state"] == "soft_deleted" and "[forgotten]" in text
    text, history = inspector.call("history", f"thought_id={first}", space)
    assert [e["kind"] for e in history["events"]] == ["created", "superseded", "soft_deleted"]
    assert text.startswith(f"history of {first} (3):")
    text, _ = inspector.call("restore", f"thought_id={first}", space)
    assert text.startswith(first) and "[forgotten]" not in text
    text, topics = inspector.call("topics", space)
    assert topics == {"topics": []} and text == "topics: none"
    text, run = inspector.call("run_consolidation", space, "dry_run=true")
    assert run["status"] == "queued" and run["dry_run"]
    assert text == f"consolidation run {run['id']} queued (dry run)"
    text, _ = inspector.call("changes", "since_revision=0", space)
    assert re.search(rf"^rev \d+ .* restored thought {first} by ", text, re.M), text
    return first, second


def _resources(inspector: Inspector, ns: str, thought_id: str) -> None:
    uri = f"thoughtgraph://thoughts/{thought_id}?namespace={ns}"
    (read,) = inspector("resources/read", "--uri", uri)["contents"]
    assert read["text"].endswith("\n\nDeploys happen on Fridays.")
    assert read["text"].startswith(f"{thought_id} fact ")
    uri = f"thoughtgraph://namespaces/{ns}/session-start"
    (block,) = inspector("resources/read", "--uri", uri)["contents"]
    assert block["text"].startswith("<thoughtgraph-memory ") and "Tuesdays" in block["text"]


def _prompt(inspector: Inspector, ns: str, newer_id: str) -> None:
    got = inspector(
        "prompts/get",
        "--prompt-name",
        "what_changed_since",
        "--prompt-args",
        "revision=0",
        f"namespace={ns}",
    )
    (message,) = got["messages"]
    assert message["role"] == "user"
    assert f"created thought {newer_id} by Agent One" in message["content"]["text"]
