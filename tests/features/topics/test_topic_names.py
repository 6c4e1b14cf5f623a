"""Topic names a person would write, through a consolidation run on the real engines with
the local embedder: offline, key phrases that are noun phrases (1-4 words, no stop word,
no verb- or adverb-only fragment, title-like); with an LLM (the fake OpenAI-compatible
server), the name its summary answer carries, or the offline name when that one is bad."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.openai_server import FakeOpenAIServer
from tests.knowledge_support import contribute, make_runtime, model_settings
from tests.support import LoopThread
from thoughtgraph.domain.language.keyphrases import (
    candidates,
    is_noun_phrase,
    speaker_words,
    stop_words,
    topic_name,
    valid_name,
)
from thoughtgraph.features.consolidation.jobs import run_consolidation
from thoughtgraph.llm.embedders import TextEmbedder
from thoughtgraph.runtime import Runtime
from thoughtgraph.store.cypher_store import CypherGraphStore

MODEL = "openai/test-model"
# A small conversation written for this test: three threads, two speakers who address
# each other by name.
CONVERSATION = (
    "Nora: I finally signed up for the pottery class at the community studio.",
    "Omar: Hi Nora! A pottery class sounds relaxing, what will you make first at the studio?",
    "Nora: A glazed bowl for my sister; the pottery teacher fires the kiln on Fridays.",
    "Omar: My aunt did pottery for years, she loved the wheel more than hand building.",
    "Nora: Thanks, Omar! The pottery teacher says the wheel takes months to learn properly.",
    "Omar: I would definitely recommend the long hiking trail near Lake Tahoe if you are "
    "willing to start early.",
    "Nora: Hey Omar, the hiking trail by the lake sounds lovely, how long is the hike?",
    "Omar: The hiking trail is about twelve miles, Nora, so bring good hiking boots and water.",
    "Nora: I bought new hiking boots last spring for a trail in Yosemite.",
    "Omar: Biscuit, my dog, has a vet appointment on Tuesday for his sore paw.",
    "Nora: Oh no, Omar! Is your dog Biscuit still limping after the dog park?",
    "Omar: The vet thinks Biscuit sprained his paw; the dog gets anti-inflammatory pills.",
)
BAD_NAMES = ("definitely recommend long willing", "the and of it", "", "x " * 9)


def check_name(name: str) -> None:
    words = name.split()
    assert 1 <= len(words) <= 4, name
    assert not any(w.lower() in stop_words() for w in words), name
    assert is_noun_phrase(name), name
    assert name[:1].isupper() and name != "Untitled", name


def run(loop: LoopThread, runtime: Runtime, ns: str) -> None:
    for text in CONVERSATION:
        contribute(loop, runtime, ns, text)
    queued = loop.run(runtime.services.consolidation.request(ns, dry_run=False, trigger="test"))
    loop.run(run_consolidation(runtime, ns, queued.id, dry_run=False))


def names(loop: LoopThread, runtime: Runtime, ns: str) -> list[str]:
    return [t.name for t in loop.run(runtime.services.topics.recent(ns, 100))]


def test_offline_topic_names_are_noun_phrases(
    loop: LoopThread,
    store: CypherGraphStore,
    local_embedder: TextEmbedder,
    tmp_path: Path,
    ns: str,
) -> None:
    runtime = make_runtime(store, local_embedder, tmp_path, topic_summary_min_unsummarised=2)
    try:
        run(loop, runtime, ns)
        found = names(loop, runtime, ns)
    finally:
        loop.run(runtime.services.close())
    assert len(found) >= 3, found
    for name in found:
        check_name(name)
    joined = " | ".join(found).lower()
    for theme in ("pottery", "hiking", "biscuit"):
        assert theme in joined, found
    # Named after what is talked about, never only after who is talking.
    assert not {name.lower() for name in found} & {"nora", "omar", "nora omar", "omar nora"}


def test_names_are_checked_as_a_person_would_write_them() -> None:
    assert valid_name("pottery class") == "Pottery Class"
    assert valid_name('"Kubernetes upgrade."') == "Kubernetes Upgrade"
    assert valid_name("Bill of Materials") == "Bill of Materials"
    for bad in (*BAD_NAMES, "hiking", "recommend", "of pottery", "very long name with five"):
        if bad == "hiking":
            continue  # a gerund names a thing
        assert valid_name(bad) is None, bad


class NamingModel:
    """Answers the summary prompt with ``name``; anything else as a compatible judge."""

    def __init__(self, name: Any) -> None:
        self.name = name
        self.asked = 0

    def __call__(self, messages: list[dict[str, Any]]) -> str:
        user = str(messages[-1]["content"])
        if user.startswith("Pairs:"):
            pairs = json.loads(user.split("\n", 1)[1])
            verdicts = [
                {"pair_id": p["pair_id"], "relation": "compatible", "confidence": 0.9}
                for p in pairs
            ]
            return json.dumps({"verdicts": verdicts})
        self.asked += 1
        return json.dumps({"name": self.name, "summary": "A summary.", "superseded_ids": []})


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as fake:
        yield fake


@pytest.mark.parametrize("answer", ["Pottery Studio", "definitely recommend long willing"])
def test_with_an_llm_the_summary_names_the_topic_or_the_offline_name_stays(
    loop: LoopThread,
    store: CypherGraphStore,
    local_embedder: TextEmbedder,
    server: FakeOpenAIServer,
    tmp_path: Path,
    ns: str,
    answer: str,
) -> None:
    model = NamingModel(answer)
    server.chat_responder = model
    runtime = make_runtime(
        store,
        local_embedder,
        tmp_path,
        **model_settings(server, MODEL),
        topic_summary_min_unsummarised=2,
    )
    try:
        run(loop, runtime, ns)
        topics = loop.run(runtime.services.topics.recent(ns, 100))
    finally:
        loop.run(runtime.services.close())
    summarised = [t for t in topics if t.summary]
    assert model.asked and len(summarised) == model.asked, topics
    for topic in topics:
        check_name(topic.name)
    if valid_name(answer) is not None:
        assert {t.name for t in summarised} == {answer}
    else:
        assert all(t.name.lower() != answer for t in topics)


def test_speakers_addressing_each_other_do_not_name_the_topic() -> None:
    # Greeted and thanked by name in every turn, the speakers are YAKE's strongest phrases.
    turns = (
        "Maria: Hi John! I went to the shelter again to volunteer.",
        "John: Thanks, Maria! Volunteering sounds great, John here is proud.",
        "Maria: Hey John, the shelter needs blankets.",
        "John: Maria, Maria! I donated blankets to the homeless shelter, Maria.",
    )
    assert "john" in speaker_words(turns) and "maria" in speaker_words(turns)
    # Without the rule this names the topic "John".
    assert topic_name(turns) in {"Shelter", "Blankets", "Homeless Shelter"}


def test_a_word_the_texts_use_as_a_verb_or_an_adjective_names_no_topic() -> None:
    turns = (
        "Jon: I want to make a difference in my community. That sounds hard.",
        "Gina: You can make it happen! It sounds like the dance studio is close.",
        "Jon: We make progress on the dance studio every week. Stay positive!",
        "Gina: The dance studio opening sounds exciting. I'm so positive about it.",
    )
    found = {c.lower() for c in candidates(turns)}
    assert {"make", "sounds", "positive", "make progress"}.isdisjoint(found), found
    assert "dance studio" in found
    # The same words used as nouns stay candidates.
    assert "sounds" in {c.lower() for c in candidates(["The sounds of the harbour at night."])}


def test_spoken_contractions_name_no_topic() -> None:
    # Written for this test: "gonna" opens most turns and no lexicon knows it, so it
    # passed as an unknown term and named the topic "Gonna".
    turns = (
        "Caroline: Gonna check out the pottery class next week!",
        "Melanie: I am gonna paint a sunset with the kids.",
        "Caroline: We are gonna go camping, gonna be fun.",
        "Melanie: Gonna try the new trail tomorrow, wanna come?",
    )
    found = {c.lower() for c in candidates(turns)}
    assert {"gonna", "wanna"}.isdisjoint(found), found
    assert topic_name(turns) == "Pottery Class"


def test_verbs_after_negated_modals_and_in_the_progressive_name_no_topic() -> None:
    # Written for this test: "can't wait", "won't quit" (curly apostrophes too) and "I'm
    # working" are verbs; the gerund after another verb stays a noun ("love painting").
    turns = (
        "Ana: Can\u2019t wait to see the mural! I won\u2019t quit until it is finished.",
        "Ben: I'm working on the mural every night, can't wait for the opening.",
        "Ana: You won't quit, I know. I love painting murals with you.",
        "Ben: We were working late; the painting of the mural wall is nearly done.",
    )
    found = {c.lower() for c in candidates(turns)}
    assert {"wait", "quit", "working"}.isdisjoint(found), found
    assert {"mural", "murals", "mural wall"} & found, found
    # The same words as nouns stay candidates.
    nouns = ["The wait at the clinic was long.", "The wait for results took a week."]
    assert "wait" in {c.lower() for c in candidates(nouns)}
    assert topic_name(("Ana: Bye!", "Ben: Bye, see you!", "Ana: Goodbye, Ben.")) == "Untitled"
    # A verb after a plural subject: never after a determiner, so not a noun here.
    plural = ["Family moments make life awesome.", "Good friends make everything easier."]
    assert "make" not in {c.lower() for c in candidates(plural)}


def test_a_name_another_topic_has_goes_to_the_next_best_phrase() -> None:
    turns = (
        "Nora: The pottery class at the community studio starts on Monday.",
        "Omar: The pottery teacher fires the kiln at the community studio on Fridays.",
        "Nora: My pottery bowl cracked in the kiln at the studio.",
    )
    first = topic_name(turns)
    check_name(first)
    second = topic_name(turns, taken={first.lower()})
    assert second != first and second.lower() in {c.lower() for c in candidates(turns)}
    check_name(second)
    # When every phrase is taken, the best one stays: a topic always has a name.
    everything = {c.lower() for c in candidates(turns)}
    assert topic_name(turns, taken=everything) == first
