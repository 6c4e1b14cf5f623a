"""The writing rules on the prompts that write thoughts and summaries, over real HTTP: a
text that breaks its style's rules makes the client ask the model again with the rules
(the reprompt), a text that is too long is trimmed without a second call, and every
checked text is counted on the runtime's metrics (``tg_writing_checks_total``)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from tests.fakes.openai_server import FakeOpenAIServer, openai_server_fixture
from thoughtgraph.domain.judgement import UsageMeter
from thoughtgraph.llm.client import LLMAnswerInvalid, LLMClient
from thoughtgraph.llm.prompts import episode_extraction, topic_summary
from thoughtgraph.observability.telemetry import Telemetry

openai_server = openai_server_fixture()

MODEL = "openai/chat-fake"
TRANSCRIPT = "User: Dana moved the nightly backup to 02:00 UTC.\nAssistant: Noted."


def extraction(summary: str, *contents: tuple[str, str]) -> str:
    return json.dumps(
        {
            "title": "Backup window",
            "summary": summary,
            "thoughts": [
                {"kind": kind, "salience": 0.8, "content": content, "topic_hint": "backups"}
                for kind, content in contents
            ],
        }
    )


def client_for(server: FakeOpenAIServer, telemetry: Telemetry, **options: Any) -> LLMClient:
    return LLMClient(
        MODEL,
        api_base=server.base_url,
        api_key="test-key",
        retries=0,
        timeout_s=10.0,
        observer=telemetry,
        **options,
    )


def checks(telemetry: Telemetry) -> dict[tuple[str, str, str, str], float]:
    (family,) = [f for f in telemetry.metrics.registry.collect() if f.name == "tg_writing_checks"]
    return {
        (s.labels["prompt"], s.labels["style"], s.labels["outcome"], s.labels["attempt"]): s.value
        for s in family.samples
        if s.name == "tg_writing_checks_total"
    }


def test_a_pronoun_for_a_person_gets_the_model_asked_again(
    openai_server: FakeOpenAIServer,
) -> None:
    telemetry = Telemetry()
    openai_server.queue_chat(
        extraction(
            "Dana moved the nightly backup to 02:00 UTC.",
            ("decision", "He moved the nightly backup to 02:00 UTC."),
        )
    )
    openai_server.queue_chat(
        extraction(
            "Dana moved the nightly backup to 02:00 UTC.",
            ("decision", "Dana moved the nightly backup to 02:00 UTC."),
        )
    )
    usage = UsageMeter()
    answer = asyncio.run(
        client_for(openai_server, telemetry).complete(
            episode_extraction.PROMPT, usage, TRANSCRIPT, 10
        )
    )
    assert [t.content for t in answer.thoughts] == ["Dana moved the nightly backup to 02:00 UTC."]
    _, again = openai_server.chat_requests
    reprompt = again.json["messages"][-1]["content"]
    assert "writing rules" in reprompt and "pronoun" in reprompt and "third-person" in reprompt
    assert usage.usage.calls == 2
    assert checks(telemetry) == {
        ("episode_extraction", "episodic", "passed", "first"): 1.0,
        ("episode_extraction", "semantic", "rejected", "first"): 1.0,
        ("episode_extraction", "episodic", "passed", "repair"): 1.0,
        ("episode_extraction", "semantic", "passed", "repair"): 1.0,
    }


def test_a_summary_too_long_is_trimmed_without_a_second_call(
    openai_server: FakeOpenAIServer,
) -> None:
    telemetry = Telemetry()
    openai_server.queue_chat(
        extraction(
            "Dana moved the nightly backup to 02:00 UTC. The old window clashed with the "
            "batch jobs. Nothing else was discussed.",
            ("decision", "The nightly backup runs at 02:00 UTC."),
            ("episode_note", "Dana and the assistant discussed the backup window."),
        )
    )
    answer = asyncio.run(
        client_for(openai_server, telemetry).complete(
            episode_extraction.PROMPT, UsageMeter(), TRANSCRIPT, 10
        )
    )
    assert answer.summary == (
        "Dana moved the nightly backup to 02:00 UTC. The old window clashed with the batch jobs."
    )
    assert len(openai_server.chat_requests) == 1
    assert checks(telemetry) == {
        ("episode_extraction", "episodic", "trimmed", "first"): 1.0,
        ("episode_extraction", "semantic", "passed", "first"): 1.0,
        ("episode_extraction", "episodic", "passed", "first"): 1.0,
    }


def test_a_summary_in_the_ai_s_voice_twice_is_rejected(openai_server: FakeOpenAIServer) -> None:
    telemetry = Telemetry()
    for _ in range(2):
        openai_server.queue_chat(
            json.dumps({"summary": "We run billing on port 9443.", "superseded_ids": []})
        )
    thoughts = [topic_summary.ThoughtForSummary(id="t1", text="Billing runs on 9443.", at_ms=0)]
    with pytest.raises(LLMAnswerInvalid):
        asyncio.run(
            client_for(openai_server, telemetry).complete(
                topic_summary.PROMPT, UsageMeter(), thoughts, 120, "billing"
            )
        )
    assert len(openai_server.chat_requests) == 2
    assert checks(telemetry) == {
        ("topic_summary", "summary", "rejected", "first"): 1.0,
        ("topic_summary", "summary", "rejected", "repair"): 1.0,
    }


def test_without_an_observer_nothing_is_counted_and_the_rules_still_hold(
    openai_server: FakeOpenAIServer,
) -> None:
    openai_server.queue_chat(extraction("", ("fact", "You deploy on Tuesdays.")))
    client = LLMClient(MODEL, api_base=openai_server.base_url, api_key="k", repair=False)
    with pytest.raises(LLMAnswerInvalid, match="writing rules"):
        asyncio.run(client.complete(episode_extraction.PROMPT, UsageMeter(), TRANSCRIPT, 10))


def test_an_empty_episode_summary_is_left_to_the_compression_prompt() -> None:
    answer = episode_extraction.Response.model_validate_json(
        extraction("", ("insight", "Dana prefers early maintenance windows; she avoids nights."))
    )
    assert answer.summary == ""
    assert answer.thoughts[0].content.startswith("Dana prefers")
