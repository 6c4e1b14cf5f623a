"""The LLM path of every maintenance feature, on both engines, against an OpenAI-compatible
server the test runs (litellm over real HTTP): topic summaries that supersede, episode
extraction and compression; and the offline extraction beside it. Also usage tracking."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.openai_server import FakeOpenAIServer
from tests.knowledge_support import contribute, make_runtime, model_settings
from tests.support import LoopThread
from thoughtgraph.domain.changes import Actor
from thoughtgraph.domain.knowledge import Artifact
from thoughtgraph.domain.models import ThoughtKind
from thoughtgraph.features.consolidation.jobs import run_consolidation
from thoughtgraph.llm.embedders import TextEmbedder
from thoughtgraph.runtime import Runtime
from thoughtgraph.store.cypher_store import CypherGraphStore

MODEL = "openai/test-model"
AGENT = Actor(id="agent-1", name="Agent")
RATE_LIMITS = (
    "The payments API rate limit is 100 requests per second per client.",
    "Clients that exceed the payments API rate limit get HTTP 429 responses.",
    "The payments API rate limit resets every second.",
    "Payments API rate limits are counted per API key.",
    "The payments API returns a Retry-After header when a client is rate limited.",
)
TRANSCRIPT = """User: We decided to move the job queue from RabbitMQ to Redis streams.
Assistant: Noted. Watch out: Redis streams need consumer groups trimmed or memory grows.
User: Thanks, that's all."""


class PlayedModel:
    """Answers each prompt of the service as a model would, from the request itself."""

    def __init__(self) -> None:
        self.superseded: list[str] = []
        self.prompts: list[str] = []

    def __call__(self, messages: list[dict[str, Any]]) -> str:
        user = str(messages[-1]["content"])
        if user.startswith("Pairs:"):
            self.prompts.append("contradictions")
            pairs = json.loads(user.split("\n", 1)[1])
            return json.dumps(
                {
                    "verdicts": [
                        {
                            "pair_id": p["pair_id"],
                            "relation": "compatible",
                            "confidence": 0.9,
                            "explanation": "both hold",
                        }
                        for p in pairs
                    ]
                }
            )
        if "Thoughts:" in user:
            self.prompts.append("topic_summary")
            return json.dumps(
                {
                    "summary": "Payments API: 100 requests/s per API key, 429 with Retry-After.",
                    "superseded_ids": self.superseded,
                }
            )
        if "Conversation:" in user:
            self.prompts.append("episode_extraction")
            return json.dumps(
                {
                    "title": "Job queue moves to Redis streams",
                    "summary": "The team moved the job queue from RabbitMQ to Redis streams.",
                    "thoughts": [
                        {
                            "kind": "decision",
                            "salience": 0.9,
                            "topic_hint": "job queue",
                            "content": "The job queue moved from RabbitMQ to Redis streams.",
                        },
                        {
                            "kind": "risk",
                            "salience": 0.7,
                            "topic_hint": "job queue",
                            "content": "Redis streams need consumer groups trimmed, or "
                            "memory grows.",
                        },
                    ],
                }
            )
        self.prompts.append("compression")
        return json.dumps(
            {
                "summary": "Queue moved to Redis streams; trim consumer groups.",
                "line": "Job queue: RabbitMQ -> Redis streams",
            }
        )


@pytest.fixture
def model() -> Iterator[tuple[FakeOpenAIServer, PlayedModel]]:
    played = PlayedModel()
    with FakeOpenAIServer() as server:
        server.chat_responder = played
        yield server, played


@pytest.fixture
def llm_runtime(
    loop: LoopThread,
    store: CypherGraphStore,
    local_embedder: TextEmbedder,
    tmp_path: Path,
    model: tuple[FakeOpenAIServer, PlayedModel],
) -> Iterator[Runtime]:
    server, _ = model
    runtime = make_runtime(
        store,
        local_embedder,
        tmp_path,
        **model_settings(server, MODEL),
    )
    yield runtime
    loop.run(runtime.services.close())


def test_the_model_summarises_a_topic_and_what_it_supersedes_is_superseded(
    loop: LoopThread,
    llm_runtime: Runtime,
    model: tuple[FakeOpenAIServer, PlayedModel],
    ns: str,
) -> None:
    server, played = model
    old = contribute(
        loop, llm_runtime, ns, "The payments API rate limit is 50 requests per second per client."
    )
    for text in RATE_LIMITS:
        contribute(loop, llm_runtime, ns, text)
    played.superseded = [old]
    run = llm_runtime.services.consolidation
    queued = loop.run(run.request(ns, dry_run=False, trigger="test"))
    done = loop.run(run_consolidation(llm_runtime, ns, queued.id, dry_run=False))
    assert "topic_summary" in played.prompts and "contradictions" in played.prompts
    assert done.counts.summarised == 1 and done.counts.superseded >= 1
    assert done.usage.llm_calls == len(server.chat_requests)
    assert done.usage.prompt_tokens > 0 and done.usage.completion_tokens > 0
    (topic,) = [t for t in loop.run(llm_runtime.services.topics.recent(ns, 10)) if t.summary]
    assert (topic.summary or "").startswith("Payments API: 100 requests/s")
    stored = loop.run(llm_runtime.repos.thoughts.get_many(ns, [old]))[old]
    assert stored.superseded_by is not None and stored.superseded_by != old


def test_the_model_extracts_typed_thoughts_from_an_episode(
    loop: LoopThread, llm_runtime: Runtime, ns: str
) -> None:
    episode = loop.run(
        llm_runtime.services.episodes.ingest(
            ns, TRANSCRIPT, title=None, artifacts=[Artifact(kind="adr", ref="ADR-012")], actor=AGENT
        )
    )
    assert episode.title == "Job queue moves to Redis streams"
    assert episode.compressed == "Job queue: RabbitMQ -> Redis streams"
    assert episode.extractor == "openai/test-model"
    assert episode.artifacts == (Artifact(kind="adr", ref="ADR-012"),)
    thoughts = loop.run(llm_runtime.repos.thoughts.get_many(ns, list(episode.thought_ids)))
    kinds = sorted(thoughts[t].kind for t in episode.thought_ids)
    assert kinds == [ThoughtKind.DECISION, ThoughtKind.RISK]
    assert all(t.episode_id == episode.id for t in thoughts.values())
    again = loop.run(
        llm_runtime.services.episodes.ingest(ns, TRANSCRIPT, title=None, artifacts=[], actor=AGENT)
    )
    assert again.id == episode.id  # the same transcript: the same episode, nothing new


def test_without_a_model_turns_become_facts(
    loop: LoopThread, store: CypherGraphStore, local_embedder: TextEmbedder, tmp_path: Path, ns: str
) -> None:
    runtime = make_runtime(store, local_embedder, tmp_path)
    try:
        episode = loop.run(
            runtime.services.episodes.ingest(
                ns, TRANSCRIPT, title="Queue talk", artifacts=[], actor=AGENT
            )
        )
        thoughts = loop.run(runtime.repos.thoughts.get_many(ns, list(episode.thought_ids)))
    finally:
        loop.run(runtime.services.close())
    assert episode.title == "Queue talk" and episode.extractor == "offline"
    assert thoughts and all(t.kind is ThoughtKind.FACT for t in thoughts.values())
    assert all(t.salience == 0.5 for t in thoughts.values())
    assert any("RabbitMQ" in t.content for t in thoughts.values())


def test_search_records_usage(
    loop: LoopThread, store: CypherGraphStore, local_embedder: TextEmbedder, tmp_path: Path, ns: str
) -> None:
    runtime = make_runtime(store, local_embedder, tmp_path)
    try:
        found = contribute(loop, runtime, ns, "The VPN gateway is vpn.acme.io.")
        loop.run(runtime.services.search.search(ns, "vpn gateway address"))
        loop.run(runtime.services.search.search(ns, "where is the vpn"))
        loop.run(runtime.services.access.flush())
        thought = loop.run(runtime.repos.thoughts.get_many(ns, [found]))[found]
    finally:
        loop.run(runtime.services.close())
    assert thought.access_count == 2  # buffered, and each retrieval counted
    assert thought.last_accessed_at_ms is not None
