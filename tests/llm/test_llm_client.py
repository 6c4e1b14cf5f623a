"""The LLM layer over real HTTP: litellm talks to the fake OpenAI-compatible server, which
answers with what each test queued (JSON answers, 429s, 500s) and records every request."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import re
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.openai_server import FakeOpenAIServer, openai_server_fixture
from thoughtgraph.domain.judgement import LLMUsage, PairRelation, PairToJudge, UsageMeter
from thoughtgraph.domain.language.rules_judge import RuleJudge
from thoughtgraph.features.contradictions.judge import LLMJudge, ModelJudge, build_judge
from thoughtgraph.llm.cache import CACHE_FILE_NAME, MemoryAnswerCache, SqliteAnswerCache
from thoughtgraph.llm.client import (
    LLMAnswerInvalid,
    LLMBudgetExhausted,
    LLMClient,
    LLMError,
    build_llm_client,
    retry_after_s,
)
from thoughtgraph.llm.prompts import compression, contradictions, episode_extraction, topic_summary
from thoughtgraph.settings import Settings

openai_server = openai_server_fixture()

MODEL = "openai/chat-fake"
BILLING = PairToJudge(
    pair_id="p1",
    older_id="t1",
    older_text="the billing service listens on 8080",
    older_at_ms=1_700_000_000_000,
    newer_id="t2",
    newer_text="the billing service now listens on 9443",
    newer_at_ms=1_700_086_400_000,
    similarity=0.93,
)
AUTH = dataclasses.replace(
    BILLING, pair_id="p2", newer_id="t3", newer_text="the auth service listens on 9443"
)


def client_for(server: FakeOpenAIServer, **options: Any) -> LLMClient:
    options = {"retries": 2, "base_delay_s": 0.01, "timeout_s": 10.0, **options}
    return LLMClient(MODEL, api_base=server.base_url, api_key="test-key", **options)


def verdicts_json(*items: tuple[str, str]) -> str:
    return json.dumps(
        {
            "verdicts": [
                {"pair_id": pair_id, "relation": relation, "confidence": 0.9, "explanation": "x"}
                for pair_id, relation in items
            ]
        }
    )


def test_a_json_answer_is_validated_against_the_prompt_model(
    openai_server: FakeOpenAIServer,
) -> None:
    openai_server.queue_chat(verdicts_json(("p1", "update")))
    usage = UsageMeter()
    answer = asyncio.run(
        client_for(openai_server).complete(contradictions.PROMPT, usage, [BILLING])
    )
    assert isinstance(answer, contradictions.Response)
    assert [(v.pair_id, v.relation) for v in answer.verdicts] == [("p1", PairRelation.UPDATE)]
    (request,) = openai_server.chat_requests
    body = request.json
    assert body["model"] == "chat-fake"
    assert body["response_format"] == {"type": "json_object"}
    assert body["temperature"] == 0.0
    assert request.headers["authorization"] == "Bearer test-key"
    assert "the billing service now listens on 9443" in body["messages"][-1]["content"]
    # Tokens as the server counted them (words of the messages, of the answer); no price.
    assert usage.usage.calls == 1
    assert usage.usage.prompt_tokens == sum(len(m["content"].split()) for m in body["messages"])
    assert usage.usage.completion_tokens == len(verdicts_json(("p1", "update")).split())
    assert usage.usage.cost_usd == 0.0


def test_an_invalid_answer_gets_one_repair_round(openai_server: FakeOpenAIServer) -> None:
    openai_server.queue_chat('{"verdicts": [{"pair_id": "p1", "relation": "maybe"}]}')
    openai_server.queue_chat("```json\n" + verdicts_json(("p1", "conflict")) + "\n```")
    usage = UsageMeter()
    answer = asyncio.run(
        client_for(openai_server).complete(contradictions.PROMPT, usage, [BILLING])
    )
    assert answer.verdicts[0].relation is PairRelation.CONFLICT
    first, repair = openai_server.chat_requests
    messages = repair.json["messages"]
    assert messages[: len(first.json["messages"])] == first.json["messages"]
    assert messages[-2]["role"] == "assistant" and "maybe" in messages[-2]["content"]
    assert "not valid" in messages[-1]["content"] and "relation" in messages[-1]["content"]
    assert usage.usage.calls == 2 and usage.spent == 2


def test_an_answer_still_invalid_after_the_repair_raises(openai_server: FakeOpenAIServer) -> None:
    openai_server.queue_chat("no JSON here")
    openai_server.queue_chat('{"summary": ""}')
    with pytest.raises(LLMAnswerInvalid):
        asyncio.run(
            client_for(openai_server).complete(compression.PROMPT, UsageMeter(), "some text")
        )
    assert len(openai_server.chat_requests) == 2


def test_a_429_is_retried_after_the_delay_the_provider_asks_for(
    openai_server: FakeOpenAIServer,
) -> None:
    openai_server.queue_chat("slow down", status=429, retry_after="0")
    openai_server.queue_chat(verdicts_json(("p1", "update")))
    # A backoff of a minute: finishing quickly proves Retry-After was honoured.
    client = client_for(openai_server, base_delay_s=60.0)
    started = time.monotonic()
    answer = asyncio.run(client.complete(contradictions.PROMPT, UsageMeter(), [BILLING]))
    assert time.monotonic() - started < 10
    assert answer.verdicts[0].pair_id == "p1"
    assert len(openai_server.chat_requests) == 2


def test_rate_limits_and_server_errors_back_off_then_succeed(
    openai_server: FakeOpenAIServer,
) -> None:
    openai_server.queue_chat("rate limited", status=429)
    openai_server.queue_chat("overloaded", status=503)
    openai_server.queue_chat('{"summary": "Port 9443.", "line": "billing: 9443"}')
    delays: list[float] = []

    async def record(delay: float) -> None:
        delays.append(delay)

    client = client_for(openai_server, base_delay_s=0.5, sleep=record)
    usage = UsageMeter()
    answer = asyncio.run(client.complete(compression.PROMPT, usage, "the port is 9443"))
    assert answer.line == "billing: 9443"
    assert len(delays) == 2 and 0.5 <= delays[0] < 1.0 and 1.0 <= delays[1] < 2.0
    assert usage.usage.calls == 1 and usage.spent == 1  # retries are not extra calls


def test_retries_are_bounded_and_client_errors_are_not_retried(
    openai_server: FakeOpenAIServer,
) -> None:
    openai_server.fail_status = 500
    with pytest.raises(LLMError) as failed:
        asyncio.run(client_for(openai_server).complete(compression.PROMPT, UsageMeter(), "x"))
    assert failed.value.details["status_code"] == 500
    assert len(openai_server.chat_requests) == 3  # the call and its 2 retries
    openai_server.reset()
    openai_server.queue_chat("bad request", status=400)
    with pytest.raises(LLMError):
        asyncio.run(client_for(openai_server).complete(compression.PROMPT, UsageMeter(), "x"))
    assert len(openai_server.chat_requests) == 1


def test_the_cache_answers_the_same_question_without_a_call(
    openai_server: FakeOpenAIServer,
) -> None:
    openai_server.queue_chat(verdicts_json(("p1", "update")))
    client = client_for(openai_server, cache=MemoryAnswerCache())
    usage = UsageMeter(max_calls=1)
    first = asyncio.run(client.complete(contradictions.PROMPT, usage, [BILLING]))
    again = asyncio.run(client.complete(contradictions.PROMPT, usage, [BILLING]))
    assert again == first
    assert len(openai_server.chat_requests) == 1
    assert usage.usage == LLMUsage(
        calls=1,
        prompt_tokens=usage.usage.prompt_tokens,
        completion_tokens=usage.usage.completion_tokens,
        cached_answers=1,
    )
    # Another question is not answered from the cache (and the budget is spent).
    with pytest.raises(LLMBudgetExhausted):
        asyncio.run(client.complete(contradictions.PROMPT, usage, [AUTH]))


def test_the_sqlite_cache_is_shared_and_opened_on_first_use(
    openai_server: FakeOpenAIServer, tmp_path: Path
) -> None:
    settings = Settings(data_dir=tmp_path / "data", llm_model=MODEL, llm_api_key="test-key")
    path = settings.data_dir / CACHE_FILE_NAME
    openai_server.queue_chat('{"summary": "s", "line": "l"}')
    first = build_llm_client(settings)
    assert first is not None and isinstance(first.cache, SqliteAnswerCache)
    assert not path.exists()  # nothing opened yet
    first.api_base = openai_server.base_url
    asyncio.run(first.complete(compression.PROMPT, UsageMeter(), "a text"))
    assert path.is_file()
    # Another client on the same file (another worker process) finds the answer there.
    second = build_llm_client(settings)
    assert second is not None
    second.api_base = openai_server.base_url
    usage = UsageMeter(max_calls=0)
    answer = asyncio.run(second.complete(compression.PROMPT, usage, "a text"))
    assert answer == compression.Response(summary="s", line="l")
    assert usage.usage.cached_answers == 1 and len(openai_server.chat_requests) == 1
    with sqlite3.connect(path) as connection:
        assert connection.execute("SELECT prompt FROM answers").fetchall() == [("compression",)]


def test_without_budget_nothing_is_sent(openai_server: FakeOpenAIServer) -> None:
    with pytest.raises(LLMBudgetExhausted):
        asyncio.run(
            client_for(openai_server).complete(compression.PROMPT, UsageMeter(max_calls=0), "x")
        )
    assert openai_server.chat_requests == []


def test_the_llm_judge_falls_back_to_rules_once_the_budget_is_spent(
    openai_server: FakeOpenAIServer,
) -> None:
    openai_server.queue_chat(verdicts_json(("p1", "update")))
    judge = LLMJudge(client_for(openai_server), RuleJudge(), pairs_per_call=1)
    usage = UsageMeter(max_calls=1).for_namespace("ns")
    verdicts = asyncio.run(judge.judge([BILLING, AUTH], usage))
    assert [(v.pair_id, v.detector) for v in verdicts] == [("p1", MODEL), ("p2", "rules")]
    assert verdicts[1].relation is PairRelation.COMPATIBLE  # the rules: another subject
    assert len(openai_server.chat_requests) == 1
    assert usage.exhausted and usage.usage.calls == 1


def test_the_llm_judge_falls_back_when_the_llm_fails(openai_server: FakeOpenAIServer) -> None:
    openai_server.fail_status = 503
    judge = LLMJudge(client_for(openai_server, retries=1), RuleJudge())
    verdicts = asyncio.run(judge.judge([BILLING, AUTH], UsageMeter()))
    assert [(v.relation, v.detector) for v in verdicts] == [
        (PairRelation.UPDATE, "rules"),
        (PairRelation.COMPATIBLE, "rules"),
    ]
    assert len(openai_server.chat_requests) == 2  # one batch, one retry


def test_the_llm_judge_batches_pairs_and_fills_in_left_out_ones(
    openai_server: FakeOpenAIServer,
) -> None:
    openai_server.queue_chat(verdicts_json(("p2", "compatible")))  # p1 left out
    judge = LLMJudge(client_for(openai_server), RuleJudge(), pairs_per_call=8)
    verdicts = asyncio.run(judge.judge([BILLING, AUTH], UsageMeter()))
    assert [(v.pair_id, v.relation, v.detector) for v in verdicts] == [
        ("p1", PairRelation.UPDATE, "rules"),
        ("p2", PairRelation.COMPATIBLE, MODEL),
    ]
    (request,) = openai_server.chat_requests
    assert '"p1"' in request.json["messages"][-1]["content"]
    assert '"p2"' in request.json["messages"][-1]["content"]


def test_usage_is_counted_per_namespace_and_per_run() -> None:
    run = UsageMeter(max_calls=2)
    first, second = run.for_namespace("a"), run.for_namespace("b")
    assert run.for_namespace("a") is first
    assert [first.try_spend(), first.try_spend(), first.try_spend()] == [True, True, False]
    assert second.try_spend()  # each namespace has its own budget
    first.record(LLMUsage(calls=1, prompt_tokens=10, completion_tokens=2, cost_usd=0.5))
    second.record(LLMUsage(cached_answers=1))
    assert run.usage == LLMUsage(
        calls=1, prompt_tokens=10, completion_tokens=2, cost_usd=0.5, cached_answers=1
    )
    assert run.by_namespace == {"a": first.usage, "b": second.usage}
    assert UsageMeter().remaining is None and UsageMeter().try_spend()


def test_retry_after_is_read_in_every_form() -> None:
    class Failure(Exception):
        def __init__(self, headers: dict[str, str]) -> None:
            super().__init__("429")
            self.litellm_response_headers = headers

    assert retry_after_s(Failure({"Retry-After": "3"})) == 3.0
    assert retry_after_s(Failure({"retry-after-ms": "250", "retry-after": "9"})) == 0.25
    later = time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime(time.time() + 30))
    assert 20 < (retry_after_s(Failure({"retry-after": later})) or 0) <= 31
    assert retry_after_s(Failure({"retry-after": "soon"})) is None
    assert retry_after_s(Failure({})) is None


def test_factories_follow_the_settings(tmp_path: Path) -> None:
    assert build_llm_client(Settings(data_dir=tmp_path)) is None
    # Offline: the rules with the fitted update model on top.
    assert isinstance(build_judge(Settings(data_dir=tmp_path), None), ModelJudge)
    settings = Settings(
        data_dir=tmp_path, llm_model=MODEL, llm_cache=False, llm_pairs_per_call=6, llm_retries=7
    )
    client = build_llm_client(settings)
    assert client is not None and client.cache is None and client.retries == 7
    judge = build_judge(settings, client)
    assert isinstance(judge, LLMJudge) and judge.pairs_per_call == 6 and judge.name == MODEL


def test_every_prompt_renders_json_instructions_and_is_versioned() -> None:
    rendered = [
        contradictions.PROMPT.render([BILLING, AUTH]),
        topic_summary.PROMPT.render(
            [topic_summary.ThoughtForSummary(id="t1", text="port 8080", at_ms=0)], 120, "billing"
        ),
        episode_extraction.PROMPT.render("User: we deploy on Tuesdays", 10),
        compression.PROMPT.render("a long text", 40, 80),
    ]
    for messages in rendered:
        assert [m["role"] for m in messages] == ["system", "user"]
        assert "JSON" in messages[0]["content"]
        assert not re.search(r"\{[a-z_]+\}", messages[0]["content"])  # every blank filled
    assert "120 words" in rendered[1][0]["content"]
    assert "At most 10 cells" in rendered[2][0]["content"]
    names = {p.name for p in (contradictions.PROMPT, topic_summary.PROMPT, compression.PROMPT)}
    assert len(names) == 3
    answer = episode_extraction.Response.model_validate(
        {"thoughts": [{"cell_type": "Decision", "content": "Use Postgres", "salience": 0.8}]}
    )
    assert answer.thoughts[0].kind == "decision"
