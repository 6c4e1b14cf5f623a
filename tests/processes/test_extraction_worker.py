"""Multi-fact extraction end to end: `thoughtgraph serve` on the embedded engine with its
worker and a model (an OpenAI-compatible server the test runs). The write answers at
once with the contribution stored and the extraction queued; the worker then writes the
facts, each an original naming it as its source."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.openai_server import FakeOpenAIServer
from tests.processes.test_serve_process import post, running_service

pytestmark = pytest.mark.slow

LONG = (
    "Notes from the platform sync: the nightly backups of the billing database moved from "
    "02:00 to 03:30 UTC, Priya now owns the payments on-call rotation, and the staging "
    "cluster runs Kubernetes 1.30."
)
FACTS = [
    "Nightly backups of the billing database run at 03:30 UTC.",
    "Priya owns the payments on-call rotation.",
    "The staging cluster runs Kubernetes 1.30.",
]
CONTRIBUTE = """
mutation($input: ContributeInput!) {
  contribute(input: $input) { thought { id content } extractionQueued }
}
"""
EXTRACTED = """
query { thoughts(filter: {tag: "extracted"}) { nodes { content type sourceIds } } }
"""


def facts_answer(messages: list[dict[str, Any]]) -> str:
    assert LONG in str(messages[-1]["content"])
    return json.dumps({"facts": [{"content": f, "importance": 3} for f in FACTS]})


def test_extraction_runs_in_the_worker(data_dir: Path) -> None:
    with FakeOpenAIServer() as model:
        model.chat_responder = facts_answer
        with running_service(
            data_dir,
            TG_LLM_MODEL="openai/test-model",
            TG_LLM_API_BASE=model.base_url,
            TG_LLM_API_KEY="test",
            TG_LLM_CACHE="false",
        ) as (_process, client, _log):
            answer: Any = post(
                client,
                CONTRIBUTE,
                input={
                    "content": LONG,
                    "agentId": "planner",
                    "agentName": "Planner",
                    "extract": True,
                },
            )
            written = answer["contribute"]
            assert written["extractionQueued"] is True and written["thought"]["content"] == LONG
            source = written["thought"]["id"]
            deadline = time.monotonic() + 90
            nodes: list[dict[str, Any]] = []
            while time.monotonic() < deadline and len(nodes) < len(FACTS):
                nodes = post(client, EXTRACTED)["thoughts"]["nodes"]  # type: ignore[index]
                time.sleep(0.5)
            assert sorted(n["content"] for n in nodes) == sorted(FACTS)
            assert all(n["type"] == "ORIGINAL" and n["sourceIds"] == [source] for n in nodes)
            short = post(
                client,
                CONTRIBUTE,
                input={
                    "content": "Backups run at 03:30.",
                    "agentId": "a",
                    "agentName": "a",
                    "extract": True,
                },
            )
            assert short["contribute"]["extractionQueued"] is False  # type: ignore[index]
