"""recall(question) on both engines: the offline extractive answer with resolved dates for
when-questions, the reasoned answer of a model (an OpenAI-compatible server the test runs,
reached through litellm over real HTTP), and the fallbacks when the model answers out of
form, cites thoughts it was not given or fails. Also Thought.resolvedDates and recall over
the GraphQL API."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.api.test_api_lineage import agent
from tests.domain.test_temporal import at
from tests.fakes.openai_server import FakeOpenAIServer
from tests.knowledge_support import contribute, make_runtime, model_settings
from tests.support import GraphQLClient, LoopThread
from thoughtgraph.features.search.recall import EXTRACTIVE, RecallAnswer, asks_when
from thoughtgraph.llm.embedders import TextEmbedder
from thoughtgraph.runtime import Runtime
from thoughtgraph.store.cypher_store import CypherGraphStore

MODEL = "openai/test-model"
SUPPORT_GROUP = "Caroline said she went to the LGBTQ support group yesterday."
WRITTEN = "2023-05-08"
OTHERS = (
    "Melanie is training for a marathon in the autumn.",
    "The payments API rate limit is 100 requests per second.",
)
WHEN = "When did Caroline go to the LGBTQ support group?"


@pytest.mark.parametrize(
    ("question", "temporal"),
    [
        ("When did Caroline go to the support group?", True),
        ("what date was the deployment?", True),
        ("How long ago did we move to Redis?", True),
        ("On which day is the review?", True),
        ("In what year did she move?", True),
        ("In which year did she move?", True),
        ("How many weeks ago was the outage?", True),
        ("Where did Caroline go?", False),
        ("What does the service do when the disk is full?", False),
        ("Whenever possible, what do we cache?", False),
    ],
)
def test_questions_asking_for_a_time_are_recognised(question: str, temporal: bool) -> None:
    assert asks_when(question) is temporal


@pytest.fixture
def offline(
    loop: LoopThread, store: CypherGraphStore, local_embedder: TextEmbedder, tmp_path: Path
) -> Iterator[Runtime]:
    runtime = make_runtime(store, local_embedder, tmp_path)
    yield runtime
    loop.run(runtime.services.close())


def seed(loop: LoopThread, runtime: Runtime, ns: str) -> str:
    found = contribute(loop, runtime, ns, SUPPORT_GROUP, valid_from_ms=at(WRITTEN))
    for text in OTHERS:
        contribute(loop, runtime, ns, text)
    return found


def recall(loop: LoopThread, runtime: Runtime, ns: str, question: str, **kw: Any) -> RecallAnswer:
    return loop.run(runtime.services.recall.recall(ns, question, **kw))


def test_offline_a_when_question_gets_the_best_hit_with_its_resolved_date(
    loop: LoopThread, offline: Runtime, ns: str
) -> None:
    found = seed(loop, offline, ns)
    answer = recall(loop, offline, ns, WHEN, k=3)
    assert answer.answered_by == EXTRACTIVE and answer.temporal
    assert answer.sources == (found,) and answer.hits[0].thought.id == found
    assert answer.answer == f"{SUPPORT_GROUP} [yesterday = 2023-05-07]"
    assert answer.confidence == pytest.approx(answer.hits[0].similarity, abs=1e-4)
    assert 0.0 < answer.confidence <= 1.0
    assert "extractive" in answer.reasoning.lower() and WRITTEN in answer.reasoning
    assert answer.requires_inference
    (resolved,) = answer.resolutions
    assert resolved.thought_id == found
    assert resolved.resolution.date.isoformat() == "2023-05-07"


def test_offline_other_questions_get_the_best_hit_as_written(
    loop: LoopThread, offline: Runtime, ns: str
) -> None:
    found = seed(loop, offline, ns)
    answer = recall(loop, offline, ns, "Where did Caroline go for support?", k=3)
    assert not answer.temporal and answer.resolutions == ()
    assert answer.answer == SUPPORT_GROUP and answer.sources == (found,)
    forced = recall(loop, offline, ns, "Where did Caroline go?", resolve_dates=True)
    assert forced.temporal and [r.thought_id for r in forced.resolutions] == [found]


def test_offline_a_when_question_without_relative_dates_gets_the_written_day(
    loop: LoopThread, offline: Runtime, ns: str
) -> None:
    contribute(
        loop, offline, ns, "The billing service moved to Postgres 16.", valid_from_ms=at(WRITTEN)
    )
    answer = recall(loop, offline, ns, "When did billing move to Postgres?")
    assert answer.answer.endswith(f"[written {WRITTEN}]") and answer.resolutions == ()
    assert not answer.requires_inference


def test_offline_nothing_to_answer_from(loop: LoopThread, offline: Runtime, ns: str) -> None:
    answer = recall(loop, offline, ns, WHEN)
    assert answer.hits == () and answer.sources == () and answer.confidence == 0.0
    assert answer.answer == "No memory matches the question."


# --- with a model --------------------------------------------------------------------------


class PlayedModel:
    """Answers the recall prompt from what it was given: the first memory and its dates;
    ``extra_sources`` adds ids it was not given."""

    def __init__(self) -> None:
        self.extra_sources: list[str] = []
        self.given: list[list[dict[str, Any]]] = []

    def __call__(self, messages: list[dict[str, Any]]) -> str:
        user = str(messages[-1]["content"])
        memories = json.loads(user.split("Memories:\n", 1)[1])
        self.given.append(memories)
        first = memories[0]
        resolved = first.get("resolved", [])
        day = resolved[0].split(" = ")[1] if resolved else first["written"]
        return json.dumps(
            {
                "answer": f"On {day}.",
                "confidence": 0.9,
                "reasoning": f"The memory written {first['written']} says {resolved}.",
                "sources": [first["id"], *self.extra_sources],
                "requires_inference": bool(resolved),
            }
        )


@pytest.fixture
def model() -> Iterator[tuple[FakeOpenAIServer, PlayedModel]]:
    played = PlayedModel()
    with FakeOpenAIServer() as server:
        server.chat_responder = played
        yield server, played


@pytest.fixture
def reasoned(
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
        llm_retries=0,
    )
    yield runtime
    loop.run(runtime.services.close())


def test_the_model_reasons_over_resolved_dates_and_cites_only_hits(
    loop: LoopThread, reasoned: Runtime, model: tuple[FakeOpenAIServer, PlayedModel], ns: str
) -> None:
    server, played = model
    found = seed(loop, reasoned, ns)
    played.extra_sources = ["00000000-0000-4000-8000-000000000000"]  # not a hit: dropped
    answer = recall(loop, reasoned, ns, WHEN, k=3)
    assert answer.answered_by == MODEL and answer.answer == "On 2023-05-07."
    assert answer.confidence == 0.9 and answer.requires_inference
    assert answer.sources == (found,)
    assert [r.thought_id for r in answer.resolutions] == [found]
    (given,) = played.given
    assert given[0] == {
        "id": found,
        "written": WRITTEN,
        "text": SUPPORT_GROUP,
        "resolved": ['"yesterday" = 2023-05-07'],
    }
    assert len(given) == 3 and len(server.chat_requests) == 1


def test_an_answer_out_of_form_falls_back_to_the_offline_answer(
    loop: LoopThread, reasoned: Runtime, model: tuple[FakeOpenAIServer, PlayedModel], ns: str
) -> None:
    server, _ = model
    found = seed(loop, reasoned, ns)
    server.queue_chat("The answer is 7 May, I think.")  # no JSON at all
    server.queue_chat('{"answer": "7 May", "confidence": "very"}')  # the repair round
    answer = recall(loop, reasoned, ns, WHEN, k=3)
    assert len(server.chat_requests) == 2
    assert answer.answered_by == EXTRACTIVE and answer.sources == (found,)
    assert answer.answer == f"{SUPPORT_GROUP} [yesterday = 2023-05-07]"


def test_a_model_citing_only_thoughts_it_was_not_given_is_not_believed(
    loop: LoopThread, reasoned: Runtime, model: tuple[FakeOpenAIServer, PlayedModel], ns: str
) -> None:
    server, _ = model
    found = seed(loop, reasoned, ns)
    server.queue_chat(
        json.dumps({"answer": "Last Tuesday.", "confidence": 1.0, "sources": ["made-up-id"]})
    )
    answer = recall(loop, reasoned, ns, WHEN, k=3)
    assert answer.answered_by == EXTRACTIVE and answer.sources == (found,)


def test_a_failing_model_falls_back_to_the_offline_answer(
    loop: LoopThread, reasoned: Runtime, model: tuple[FakeOpenAIServer, PlayedModel], ns: str
) -> None:
    server, _ = model
    seed(loop, reasoned, ns)
    server.queue_chat("bad request", status=400)
    answer = recall(loop, reasoned, ns, WHEN, k=3)
    assert answer.answered_by == EXTRACTIVE and answer.answer.startswith(SUPPORT_GROUP)


def test_without_hits_the_model_is_not_asked(
    loop: LoopThread, reasoned: Runtime, model: tuple[FakeOpenAIServer, PlayedModel], ns: str
) -> None:
    server, _ = model
    answer = recall(loop, reasoned, ns, WHEN)
    assert answer.answered_by == EXTRACTIVE and server.chat_requests == []


# --- over GraphQL ------------------------------------------------------------------------

CONTRIBUTE = """
mutation($input: ContributeInput!) {
  contribute(input: $input) {
    thought { id createdAt validFrom
      resolvedDates { thoughtId expression start end date rangeStart rangeEnd granularity } }
  }
}"""
RECALL = """
query($q: String!, $ns: String!, $k: Int) {
  recall(question: $q, namespace: $ns, k: $k) {
    answer confidence reasoning temporal requiresInference answeredBy sourceIds
    sources { id content }
    resolutions { thoughtId expression date granularity }
    hits { id similarity thought { content } }
  }
}"""


def test_resolved_dates_and_recall_over_the_api(api: GraphQLClient, ns: str) -> None:
    written = api.data(
        CONTRIBUTE, input=agent(ns, SUPPORT_GROUP, validFrom=f"{WRITTEN}T15:00:00+00:00")
    )["contribute"]["thought"]
    assert written["resolvedDates"] == [
        {
            "thoughtId": written["id"],
            "expression": "yesterday",
            "start": SUPPORT_GROUP.index("yesterday"),
            "end": SUPPORT_GROUP.index("yesterday") + len("yesterday"),
            "date": "2023-05-07",
            "rangeStart": "2023-05-07",
            "rangeEnd": "2023-05-07",
            "granularity": "DAY",
        }
    ]
    # Without validFrom the anchor is the creation day.
    fresh = api.data(CONTRIBUTE, input=agent(ns, "The deploy froze last week."))["contribute"]
    (week,) = fresh["thought"]["resolvedDates"]
    assert week["granularity"] == "WEEK" and week["date"] < fresh["thought"]["createdAt"][:10]
    answer = api.data(RECALL, q=WHEN, ns=ns, k=2)["recall"]
    assert answer["answeredBy"] == "extractive" and answer["temporal"]
    assert answer["sourceIds"] == [written["id"]]
    assert answer["sources"] == [{"id": written["id"], "content": SUPPORT_GROUP}]
    assert answer["answer"].endswith("[yesterday = 2023-05-07]")
    assert {
        "thoughtId": written["id"],
        "expression": "yesterday",
        "date": "2023-05-07",
        "granularity": "DAY",
    } in answer["resolutions"]
    assert len(answer["hits"]) == 2
    assert api.error_codes(RECALL, q=WHEN, ns=ns, k=26) == ["VALIDATION_ERROR"]
    assert api.error_codes(RECALL, q="  ", ns=ns, k=2) == ["VALIDATION_ERROR"]


HOSTILE = ("", " ", "\x00", "a\ud800b", "x" * 2001, "\n".join(["line"] * 3), "' OR 1=1 --")


def test_hostile_recall_arguments_get_a_validation_error_or_an_answer(
    api: GraphQLClient, ns: str
) -> None:
    document = """
    query($q: String!, $ns: String!, $agent: String, $categories: [String!]) {
      recall(question: $q, namespace: $ns, agent: $agent, categories: $categories) { answer }
    }"""
    for text in HOSTILE:
        for variables in (
            {"q": text},
            {"q": "when?", "agent": text},
            {"q": "when?", "categories": [text]},
        ):
            body = api.execute(document, ns=ns, **variables)
            codes = {str((e.get("extensions") or {}).get("code")) for e in body.get("errors") or []}
            assert codes <= {"VALIDATION_ERROR"}, (variables, body)
