"""Multi-fact extraction on both engines against an OpenAI-compatible server the test runs:
a long contribution split into facts (at most three written of five, near-duplicates
left out, each an original naming the contribution as its source, which stays current
and ranks as before), a malformed answer, a 429, the daily
cap, a retry, and the offline path (the contribution as it is, nothing queued)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.openai_server import FakeOpenAIServer
from tests.knowledge_support import make_runtime
from tests.support import LoopThread
from thoughtgraph.domain.models import ThoughtType
from thoughtgraph.features.extraction.service import ExtractionStatus
from thoughtgraph.features.thoughts.inputs import ThoughtInput
from thoughtgraph.llm.embedders import TextEmbedder
from thoughtgraph.runtime import Runtime
from thoughtgraph.store.cypher_store import CypherGraphStore

LONG = (
    "Quick update from the platform sync: we moved the nightly backups of the billing "
    "database from 02:00 to 03:30 UTC, Priya now owns the on-call rotation for payments, "
    "the staging cluster runs Kubernetes 1.30, and the old Jenkins server is switched off "
    "on Friday. Also the coffee machine on floor 2 is broken again."
)
FACTS: list[dict[str, Any]] = [
    {
        "content": "Nightly backups of the billing database run at 03:30 UTC.",
        "category": "backups",
        "importance": 4,
    },
    {
        "content": "Priya owns the on-call rotation for payments.",
        "category": "on-call",
        "importance": 4,
    },
    {
        "content": "The staging cluster runs Kubernetes 1.30.",
        "category": "infrastructure",
        "importance": 3,
    },
    {
        "content": "The old Jenkins server is switched off on Friday.",
        "category": "infrastructure",
        "importance": 3,
    },
    {"content": "The coffee machine on floor 2 is broken.", "category": None, "importance": 1},
]


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as running:
        yield running


def runtime_for(
    store: CypherGraphStore,
    embedder: TextEmbedder,
    tmp_path: Path,
    server: FakeOpenAIServer | None,
    **extra: object,
) -> Runtime:
    llm: dict[str, object] = {}
    if server is not None:
        llm = {
            "llm_model": "openai/test-model",
            "llm_api_base": server.base_url,
            "llm_api_key": "test",
            "llm_cache": False,
            "llm_retries": 2,
        }
    return make_runtime(store, embedder, tmp_path, **llm, **extra)


@pytest.fixture
def runtime(
    loop: LoopThread,
    store: CypherGraphStore,
    local_embedder: TextEmbedder,
    tmp_path: Path,
    server: FakeOpenAIServer,
) -> Iterator[Runtime]:
    runtime = runtime_for(store, local_embedder, tmp_path, server, extraction_daily_cap=3)
    yield runtime
    loop.run(runtime.services.close())


def write(
    loop: LoopThread, runtime: Runtime, ns: str, content: str = LONG, **fields: object
) -> str:
    data = ThoughtInput(
        content=content,
        agent_id="planner",
        agent_name="Planner",
        namespace=ns,
        **fields,  # type: ignore[arg-type]
    )
    return loop.run(runtime.services.thoughts.contribute(data, extract=True)).thought.id


def test_a_long_contribution_becomes_at_most_three_facts(
    loop: LoopThread, runtime: Runtime, server: FakeOpenAIServer, ns: str
) -> None:
    s = runtime.services
    said = write(loop, runtime, ns, "The staging cluster runs Kubernetes 1.30 since March.")
    source = write(loop, runtime, ns, tags=("sync",))
    server.queue_chat(json.dumps({"facts": FACTS}))
    result = loop.run(s.extraction.extract(ns, source))
    assert result.status is ExtractionStatus.WRITTEN
    assert (result.candidates, len(result.written)) == (5, 3)
    assert result.duplicates == 1  # Kubernetes 1.30 was said already
    request = server.requests_to("/chat/completions")[-1].json
    assert request["temperature"] == 0.0 and request["max_tokens"] <= 600
    assert LONG in str(request["messages"])
    stored = loop.run(runtime.repos.thoughts.get_many(ns, result.written))
    facts = [stored[t] for t in result.written]
    assert [f.content for f in facts] == [
        FACTS[0]["content"],
        FACTS[1]["content"],
        FACTS[3]["content"],
    ]
    for fact in facts:
        assert fact.type is ThoughtType.ORIGINAL and fact.source_ids == (source,)
        assert set(fact.tags) == {"sync", "extracted"} and fact.agent_id == "planner"
    assert facts[0].category == "backups" and facts[0].importance == 4
    assert said not in result.written
    # The contribution stays current and is not ranked down as a refined thought.
    assert loop.run(runtime.repos.thoughts.get_many(ns, [source]))[source].is_current
    hits = loop.run(s.search.search(ns, "nightly backups of the billing database", k=10))
    ranked = {h.thought.id: h for h in hits}
    explained = ranked[source].explanation
    assert explained is not None and explained.lineage_factor == 1.0
    # A retried task writes nothing twice (ids come from the contribution).
    server.queue_chat(json.dumps({"facts": FACTS}))
    before = loop.run(runtime.repos.changes.since(ns, 0, 500))
    again = loop.run(s.extraction.extract(ns, source))
    assert again.written == result.written and again.duplicates == 1
    assert loop.run(runtime.repos.changes.since(ns, 0, 500)) == before


def test_a_bad_answer_a_429_and_the_daily_cap(
    loop: LoopThread, runtime: Runtime, server: FakeOpenAIServer, ns: str
) -> None:
    s = runtime.services
    first = write(loop, runtime, ns)
    server.queue_chat("this is not JSON")
    server.queue_chat('{"facts": [{"content": "He moved the backups."}]}')  # a pronoun
    rejected = loop.run(s.extraction.extract(ns, first))
    assert rejected.status is ExtractionStatus.REJECTED and rejected.written == []
    assert loop.run(runtime.repos.thoughts.get_many(ns, [first]))[first].is_current
    second = write(loop, runtime, ns, LONG + " Second note.")
    server.queue_chat('{"error": {"message": "slow down"}}', status=429, retry_after="0")
    server.queue_chat(json.dumps({"facts": FACTS[:1]}))
    after_429 = loop.run(s.extraction.extract(ns, second))
    assert after_429.status is ExtractionStatus.WRITTEN and len(after_429.written) == 1
    third = write(loop, runtime, ns, LONG + " Third note.")
    server.queue_chat('{"facts": []}')
    assert loop.run(s.extraction.extract(ns, third)).status is ExtractionStatus.WRITTEN
    # Three calls a day for this agent (the cap of this runtime): the fourth waits.
    fourth = write(loop, runtime, ns, LONG + " Fourth note.")
    asked = len(server.requests_to("/chat/completions"))
    capped = loop.run(s.extraction.extract(ns, fourth))
    assert capped.status is ExtractionStatus.CAP
    assert len(server.requests_to("/chat/completions")) == asked  # no call was made
    short = write(loop, runtime, ns, "Backups run at 03:30 UTC.")
    assert loop.run(s.extraction.extract(ns, short)).status is ExtractionStatus.SHORT


def test_offline_the_contribution_is_written_as_it_is(
    loop: LoopThread,
    store: CypherGraphStore,
    local_embedder: TextEmbedder,
    tmp_path: Path,
    ns: str,
) -> None:
    runtime = runtime_for(store, local_embedder, tmp_path, None)
    try:
        data = ThoughtInput(content=LONG, agent_id="planner", agent_name="Planner", namespace=ns)
        written = loop.run(runtime.services.thoughts.contribute(data, extract=True))
        assert written.extraction_queued is False
        assert loop.run(runtime.repos.thoughts.get_many(ns, [written.thought.id]))
        result = loop.run(runtime.services.extraction.extract(ns, written.thought.id))
        assert result.status is ExtractionStatus.NO_MODEL
    finally:
        loop.run(runtime.services.close())
