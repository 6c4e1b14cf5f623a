"""A workflow read off an episode by the language model (the OpenAI-compatible test server),
on both engines: only on the explicit request, the steps as the model numbered them, the
narrative sent; offline LLM_NOT_CONFIGURED, no sequence NO_WORKFLOW_FOUND, an unknown
episode NOT_FOUND, nothing written in any of them."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.openai_server import FakeOpenAIServer
from tests.knowledge_support import make_runtime, model_settings
from tests.support import LoopThread
from thoughtgraph.domain.changes import Actor
from thoughtgraph.domain.errors import ThoughtgraphError
from thoughtgraph.domain.models import ThoughtKind
from thoughtgraph.features.procedures.service import Authoring
from thoughtgraph.llm.embedders import TextEmbedder
from thoughtgraph.runtime import Runtime
from thoughtgraph.store.cypher_store import CypherGraphStore

TRANSCRIPT = """\
user: The release is ready, can you ship it?
agent: Running the tests with pnpm test --coverage. All green.
agent: Building the image with docker build -t app:4f2c .
agent: Deployed to staging, the smoke tests pass.
user: Great, go to production.
agent: Promoted app:4f2c to production."""
ANSWER = {
    "trigger": "release",
    "steps": [
        {"text": "Run the tests", "detail": "pnpm test --coverage"},
        {"text": "Build the image", "detail": "docker build -t app:$SHA ."},
        {"text": "Deploy to staging", "detail": None},
        {"text": "Promote to production"},
    ],
}


@pytest.fixture
def model() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as server:
        yield server


@pytest.fixture
def online(
    loop: LoopThread,
    store: CypherGraphStore,
    local_embedder: TextEmbedder,
    tmp_path: Path,
    model: FakeOpenAIServer,
) -> Iterator[Runtime]:
    built = make_runtime(
        store,
        local_embedder,
        tmp_path / "online",
        **model_settings(model, "openai/test-model"),
    )
    yield built
    loop.run(built.services.close())


@pytest.fixture
def offline(
    loop: LoopThread, store: CypherGraphStore, local_embedder: TextEmbedder, tmp_path: Path
) -> Iterator[Runtime]:
    built = make_runtime(store, local_embedder, tmp_path / "offline")
    yield built
    loop.run(built.services.close())


def episode(loop: LoopThread, runtime: Runtime, ns: str) -> str:
    """Ingested offline: ingestion never records a workflow by itself."""
    ingested = loop.run(
        runtime.services.episodes.ingest(
            ns, TRANSCRIPT, title="Release 4f2c", artifacts=(), actor=Actor(id="a", name="A")
        )
    )
    return ingested.id


def author(ns: str) -> Authoring:
    return Authoring(namespace=ns, agent_id="executor-1", agent_name="Executor")


def test_the_model_numbers_the_episodes_steps(
    loop: LoopThread, online: Runtime, offline: Runtime, model: FakeOpenAIServer, ns: str
) -> None:
    episode_id = episode(loop, offline, ns)
    assert loop.run(offline.services.procedures.listing(ns, ThoughtKind.WORKFLOW)) == []
    model.queue_chat(json.dumps(ANSWER))
    recorded = loop.run(
        online.services.procedures.record_workflow_from_episode(author(ns), episode_id)
    )
    assert recorded.spec.trigger == "release"
    assert (
        recorded.spec.hint
        == "release: run the tests→build the image→deploy to staging→promote to production"
    )
    assert [(s.text, s.detail) for s in recorded.spec.steps] == [
        ("Run the tests", "pnpm test --coverage"),
        ("Build the image", "docker build -t app:$SHA ."),
        ("Deploy to staging", None),
        ("Promote to production", None),
    ]
    assert recorded.thought.context == f"from episode {episode_id}"
    chats = [r for r in model.requests if r.path.endswith("/chat/completions")]
    assert len(chats) == 1 and "docker build -t app:4f2c" in json.dumps(chats[0].body)
    stored = loop.run(offline.services.procedures.get(ns, recorded.thought.id))
    assert stored is not None and stored.spec == recorded.spec


def test_without_a_model_or_a_sequence_nothing_is_written(
    loop: LoopThread, online: Runtime, offline: Runtime, model: FakeOpenAIServer, ns: str
) -> None:
    episode_id = episode(loop, offline, ns)
    before = loop.run(offline.repos.changes.revision(ns))
    model.queue_chat(json.dumps({"trigger": "chat", "steps": []}))
    cases = [
        ("LLM_NOT_CONFIGURED", offline, episode_id),
        ("NO_WORKFLOW_FOUND", online, episode_id),
        ("NOT_FOUND", online, "no-such-episode"),
    ]
    for code, runtime, eid in cases:
        with pytest.raises(ThoughtgraphError) as raised:
            loop.run(runtime.services.procedures.record_workflow_from_episode(author(ns), eid))
        assert raised.value.code == code
    assert loop.run(offline.repos.changes.revision(ns)) == before
    assert len([r for r in model.requests if r.path.endswith("/chat/completions")]) == 1
