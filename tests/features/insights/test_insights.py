"""Insights about people, on both engines, against an OpenAI-compatible server the test
runs (litellm over real HTTP): what the model is given (at most 5 items of activity, 3 new
facts and 1,000 characters of conversation, at temperature 0 and at most 220 tokens), what
is written (kind insight, category relationship_dynamic, importance 2, private to the
person and about them), the 24-hour skip on the service clock, a malformed answer, a
reprompted one and a rate limit; offline, nothing; and the low rank of an insight."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.openai_server import FakeOpenAIServer, RecordedRequest
from tests.knowledge_support import contribute, make_runtime, model_settings
from tests.support import LoopThread
from thoughtgraph.domain.changes import Actor, ChangeKind
from thoughtgraph.domain.judgement import UsageMeter
from thoughtgraph.domain.models import ThoughtKind
from thoughtgraph.domain.retrieval import RetrievalOptions
from thoughtgraph.domain.scopes import Scope
from thoughtgraph.domain.units import DAY_MS
from thoughtgraph.features.insights.jobs import NO_MODEL, InsightsResult, write_insights
from thoughtgraph.features.insights.service import CATEGORY, PersonStatus
from thoughtgraph.llm.client import LLMClient
from thoughtgraph.llm.embedders import TextEmbedder
from thoughtgraph.llm.prompts import insights, topic_summary
from thoughtgraph.ports.clock import OffsetFileClock
from thoughtgraph.runtime import Runtime
from thoughtgraph.store.cypher_store import CypherGraphStore

MODEL = "openai/test-model"
AGENT = Actor(id="agent-1", name="Agent")
END = "END-OF-CONVERSATION"
# Over 1,000 characters: the model is given its end.
TRANSCRIPT = (
    "\n".join(
        f"User: Ana, turn {i}: the billing migration needs one more review of the ledger "
        f"exports before Friday.\nAssistant: Noted for turn {i}; the ledger exports get reviewed."
        for i in range(8)
    )
    + f"\nUser: Thanks, that is all. {END}"
)
# Ana's thoughts after the episode, oldest first: (kind, text).
ANA = (
    (ThoughtKind.FACT, "Ana works at the Lisbon office."),
    (ThoughtKind.PREFERENCE, "Ana prefers answers as bullet lists."),
    (ThoughtKind.FACT, "Ana leads the payments team."),
    (ThoughtKind.DECISION, "Ana decided to ship the billing release on Friday."),
    (ThoughtKind.FACT, "Ana moved the weekly sync to Tuesday mornings."),
    (ThoughtKind.FACT, "Ana asked the agents for fewer status pings."),
)
BOB = "Bob is learning Rust on weekends."


def answer(person: str) -> str:
    name = person.title()
    return json.dumps(
        {
            "insights": [
                {
                    "summary": f"{name} trusts the agents more when they admit mistakes.",
                    "tags": ["trust", "Style", "bad tag!"],
                    "importance": 4,
                },
                {
                    "summary": f"{name} prefers short answers before meetings.",
                    "tags": ["style"],
                    "importance": 2,
                },
            ]
        }
    )


def played(messages: list[dict[str, Any]]) -> str:
    """A model answering every insights prompt well, for the person it names."""
    person = str(messages[1]["content"]).split("\n", 1)[0].removeprefix("Person: ")
    return answer(person)


def inputs(request: RecordedRequest) -> tuple[str, list[Any], list[Any], str]:
    """What one insights request gave the model: person, activity, facts, snippet."""
    user = str(request.json["messages"][1]["content"])
    head, rest = user.split("\nLatest activity (newest first):\n", 1)
    activity, rest = rest.split("\nNew facts:\n", 1)
    facts, snippet = rest.split("\nRecent conversation:\n", 1)
    return (
        head.removeprefix("Person: "),
        json.loads(activity),
        json.loads(facts),
        json.loads(snippet),
    )


@pytest.fixture
def model() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as server:
        server.chat_responder = played
        yield server


@pytest.fixture
def runtime(
    loop: LoopThread,
    store: CypherGraphStore,
    local_embedder: TextEmbedder,
    tmp_path: Path,
    model: FakeOpenAIServer,
) -> Iterator[Runtime]:
    built = make_runtime(
        store,
        local_embedder,
        tmp_path,
        **model_settings(model, MODEL),
    )
    yield built
    loop.run(built.services.close())


@pytest.fixture
def offline(
    loop: LoopThread, store: CypherGraphStore, local_embedder: TextEmbedder, tmp_path: Path
) -> Iterator[Runtime]:
    """The same store and clock without a model."""
    built = make_runtime(store, local_embedder, tmp_path)
    yield built
    loop.run(built.services.close())


def tick(runtime: Runtime, ms: int = 1000) -> None:
    clock = runtime.clock
    assert isinstance(clock, OffsetFileClock)
    clock.advance(ms)


def seed_ana(loop: LoopThread, runtime: Runtime, offline: Runtime, ns: str) -> list[str]:
    """Ana's private conversation (offline: each turn a fact of hers), then her thoughts,
    a second apart; their ids, oldest first."""
    loop.run(
        offline.services.episodes.ingest(
            ns,
            TRANSCRIPT,
            title="Billing sync",
            artifacts=[],
            actor=AGENT,
            scope=Scope.PRIVATE,
            user_id="ana",
        )
    )
    ids = []
    for kind, text in ANA:
        tick(runtime)
        ids.append(contribute(loop, runtime, ns, text, kind=kind, about="ana"))
    return ids


def seed_bob(loop: LoopThread, runtime: Runtime, ns: str) -> str:
    tick(runtime)
    return contribute(loop, runtime, ns, BOB, scope=Scope.PRIVATE, owner_id="bob")


def run(loop: LoopThread, runtime: Runtime, ns: str) -> InsightsResult:
    return loop.run(write_insights(runtime, ns), timeout=120)


def statuses(result: InsightsResult) -> dict[str, PersonStatus]:
    return {p.person: p.status for p in result.people}


def insight_ids(result: InsightsResult, person: str) -> list[str]:
    (found,) = [p for p in result.people if p.person == person]
    return found.thought_ids


def test_a_person_with_activity_gets_insights_from_bounded_inputs(
    loop: LoopThread, runtime: Runtime, offline: Runtime, model: FakeOpenAIServer, ns: str
) -> None:
    ana = seed_ana(loop, runtime, offline, ns)
    contribute(loop, runtime, ns, "The staging cluster runs Kubernetes 1.30.")  # nobody's
    seed_bob(loop, runtime, ns)
    result = run(loop, runtime, ns)

    assert result.status == "done"
    assert statuses(result) == {"ana": PersonStatus.WRITTEN, "bob": PersonStatus.WRITTEN}
    assert result.written == 4 and result.llm_calls == 2
    requests = {inputs(r)[0]: r for r in model.chat_requests}
    assert set(requests) == {"ana", "bob"}
    for request in requests.values():
        assert request.json["temperature"] == 0
        assert 0 < request.json["max_tokens"] <= 220
    _person, activity, facts, snippet = inputs(requests["ana"])
    newest = [text for _, text in reversed(ANA)]
    assert [a["text"] for a in activity] == newest[:5]
    assert [f["text"] for f in facts] == [text for kind, text in reversed(ANA) if kind == "fact"][
        :3
    ]
    assert len(snippet) <= 1000 and snippet.startswith("…") and snippet.endswith(END)
    _, bob_activity, bob_facts, bob_snippet = inputs(requests["bob"])
    assert [a["text"] for a in bob_activity] == [BOB] == [f["text"] for f in bob_facts]
    assert bob_snippet == BOB  # no conversation of his: his newest thoughts

    for who in ("ana", "bob"):
        ids = insight_ids(result, who)
        stored = loop.run(runtime.repos.thoughts.get_many(ns, ids))
        assert [stored[i].content for i in ids] == [
            f"{who.title()} trusts the agents more when they admit mistakes.",
            f"{who.title()} prefers short answers before meetings.",
        ]
        for thought in stored.values():
            assert thought.kind is ThoughtKind.INSIGHT and thought.category == CATEGORY
            assert thought.importance == 2 and not thought.pinned  # 2, whatever was answered
            assert (thought.about, thought.scope, thought.owner_id) == (
                who,
                Scope.PRIVATE,
                who,
            )
            assert thought.agent_name == "insights"
        assert stored[ids[0]].tags == ("trust", "style")
    # Written through ThoughtService: the change log records each.
    events = loop.run(runtime.services.history.changes(ns, 0, 500))
    created = {e.subject_id for e in events if e.kind is ChangeKind.CREATED}
    assert set(insight_ids(result, "ana")) | set(insight_ids(result, "bob")) <= created
    assert not set(ana) & set(insight_ids(result, "ana"))


def test_a_second_run_within_a_day_skips_and_a_day_later_new_activity_gets_new_insights(
    loop: LoopThread, runtime: Runtime, offline: Runtime, model: FakeOpenAIServer, ns: str
) -> None:
    seed_ana(loop, runtime, offline, ns)
    first = run(loop, runtime, ns)
    assert statuses(first) == {"ana": PersonStatus.WRITTEN}
    asked = len(model.chat_requests)

    tick(runtime, 23 * 3600 * 1000)
    again = run(loop, runtime, ns)
    assert statuses(again) == {"ana": PersonStatus.SKIPPED_RECENT}
    assert again.written == 0 and len(model.chat_requests) == asked

    tick(runtime, 2 * 3600 * 1000)  # 25 h after the insights: nothing new happened since
    assert run(loop, runtime, ns).people == []
    assert len(model.chat_requests) == asked

    tick(runtime)
    news = "Ana now prefers video calls to long emails."
    contribute(loop, runtime, ns, news, about="ana")
    later = run(loop, runtime, ns)
    assert statuses(later) == {"ana": PersonStatus.WRITTEN}
    assert set(insight_ids(later, "ana")).isdisjoint(insight_ids(first, "ana"))
    _, activity, facts, _ = inputs(model.chat_requests[-1])
    assert activity[0]["text"] == news
    assert [f["text"] for f in facts] == [news]  # learned since the last insight
    written = loop.run(runtime.repos.insights.last_written(ns, ["ana"]))
    assert written["ana"] > runtime.clock.now_ms() - DAY_MS


def test_a_malformed_answer_twice_is_rejected_and_the_job_goes_on(
    loop: LoopThread, runtime: Runtime, offline: Runtime, model: FakeOpenAIServer, ns: str
) -> None:
    seed_bob(loop, runtime, ns)
    seed_ana(loop, runtime, offline, ns)  # the most recently active: asked first
    model.queue_chat("Ana seems to trust the agents.")  # not JSON
    model.queue_chat('{"insights": "none"}')  # JSON, but not the form asked for
    result = run(loop, runtime, ns)
    assert result.status == "done"
    assert statuses(result) == {"ana": PersonStatus.REJECTED, "bob": PersonStatus.WRITTEN}
    (ana,) = [p for p in result.people if p.person == "ana"]
    assert ana.thought_ids == [] and ana.error == "LLM_ANSWER_INVALID"
    assert len(model.chat_requests) == 3  # the answer, its repair, then Bob's
    written = loop.run(runtime.repos.insights.last_written(ns, ["ana", "bob"]))
    assert set(written) == {"bob"}


def test_an_answer_breaking_the_writing_rules_is_asked_again(
    loop: LoopThread, runtime: Runtime, offline: Runtime, model: FakeOpenAIServer, ns: str
) -> None:
    seed_ana(loop, runtime, offline, ns)
    model.queue_chat(
        json.dumps({"insights": [{"summary": "I think Ana trusts us more now.", "tags": []}]})
    )
    model.queue_chat(answer("ana"))
    result = run(loop, runtime, ns)
    assert statuses(result) == {"ana": PersonStatus.WRITTEN}
    first, repair = model.chat_requests
    messages = repair.json["messages"]
    assert messages[:2] == first.json["messages"][:2]
    assert messages[-1]["content"].startswith("That answer was not valid")
    assert "ai_voice" in messages[-1]["content"]
    stored = loop.run(runtime.repos.thoughts.get_many(ns, insight_ids(result, "ana")))
    assert all("I " not in t.content for t in stored.values())


def test_a_rate_limited_call_is_retried(
    loop: LoopThread, runtime: Runtime, offline: Runtime, model: FakeOpenAIServer, ns: str
) -> None:
    seed_ana(loop, runtime, offline, ns)
    model.queue_chat("slow down", status=429, retry_after="0")
    model.queue_chat(answer("ana"))
    result = run(loop, runtime, ns)
    assert statuses(result) == {"ana": PersonStatus.WRITTEN} and result.written == 2
    assert len(model.chat_requests) == 2  # the 429, then the answer


def test_offline_the_job_writes_nothing(
    loop: LoopThread, runtime: Runtime, offline: Runtime, model: FakeOpenAIServer, ns: str
) -> None:
    seed_ana(loop, runtime, offline, ns)
    result = run(loop, offline, ns)
    assert (result.status, result.people, result.written) == (NO_MODEL, [], 0)
    assert offline.services.insights.offline and not runtime.services.insights.offline
    assert loop.run(offline.repos.insights.last_written(ns, ["ana"])) == {}
    assert model.chat_requests == []


@pytest.mark.parametrize("hybrid", [True, False])
def test_an_insight_ranks_below_an_equally_similar_fact(
    loop: LoopThread, offline: Runtime, ns: str, hybrid: bool
) -> None:
    text = "Ana trusts the agents more when they admit mistakes."
    fact = contribute(loop, offline, ns, text, about="ana")
    tick(offline)
    insight = contribute(loop, offline, ns, text, about="ana", kind=ThoughtKind.INSIGHT)
    options = RetrievalOptions(hybrid=hybrid)
    hits = loop.run(
        offline.services.search.search(ns, "does Ana trust the agents?", options=options)
    )
    assert [h.thought.id for h in hits] == [fact, insight]
    ranked = {h.thought.id: h for h in hits}
    assert ranked[insight].score == pytest.approx(0.5 * ranked[fact].score, rel=0.01)
    if hybrid:
        explanation = ranked[insight].explanation
        assert explanation is not None and explanation.kind_factor == 0.5


def test_the_insight_rank_factor_is_a_setting(
    loop: LoopThread, store: CypherGraphStore, local_embedder: TextEmbedder, tmp_path: Path, ns: str
) -> None:
    runtime = make_runtime(store, local_embedder, tmp_path, insight_rank_factor=1.0)
    try:
        text = "Ana prefers short answers before meetings."
        contribute(loop, runtime, ns, text, about="ana")
        contribute(loop, runtime, ns, text, about="ana", kind=ThoughtKind.INSIGHT)
        hits = loop.run(runtime.services.search.search(ns, "what answers does Ana prefer?"))
    finally:
        loop.run(runtime.services.close())
    assert len(hits) == 2 and hits[0].score == pytest.approx(hits[1].score, rel=0.01)


# --- the prompt ------------------------------------------------------------------------------


def test_the_prompt_holds_at_most_five_activities_three_facts_and_1000_characters() -> None:
    thought = insights.ThoughtForInsight(kind="fact", text="Ana likes tea.", at_ms=0)
    (_, user) = insights.PROMPT.render("ana", [thought] * 8, [thought] * 6, "x" * 3000)
    request = RecordedRequest("POST", "/", {}, {"messages": [{}, user]})
    person, activity, facts, snippet = inputs(request)
    assert (person, len(activity), len(facts), len(snippet)) == ("ana", 5, 3, 1000)
    assert insights.PROMPT.temperature == 0 and insights.PROMPT.max_tokens == 220


def test_only_the_insights_prompt_overrides_the_clients_temperature_and_tokens(
    model: FakeOpenAIServer,
) -> None:
    import asyncio

    model.chat_responder = None
    client = LLMClient(
        MODEL, api_base=model.base_url, api_key="test", temperature=0.7, max_tokens=1024
    )
    model.queue_chat(answer("ana"))
    asyncio.run(client.complete(insights.PROMPT, UsageMeter(), "ana", [], [], ""))
    model.queue_chat('{"summary": "Ana likes tea."}')
    thought = topic_summary.ThoughtForSummary(id="t1", text="Ana likes tea.", at_ms=0)
    asyncio.run(client.complete(topic_summary.PROMPT, UsageMeter(), [thought], 50))
    small = LLMClient(MODEL, api_base=model.base_url, api_key="test", max_tokens=100)
    model.queue_chat(answer("ana"))
    asyncio.run(small.complete(insights.PROMPT, UsageMeter(), "ana", [], [], ""))
    sent = [(r.json["temperature"], r.json["max_tokens"]) for r in model.chat_requests]
    assert sent == [(0, 220), (0.7, 1024), (0, 100)]
