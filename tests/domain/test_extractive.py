"""The offline paths: extractive summaries, compression, transcript splitting, topic names
and extraction. Deterministic: the same input gives the same output, every time."""

from __future__ import annotations

import pytest

from thoughtgraph.domain.judgement import ExtractedThought
from thoughtgraph.domain.language.extractive import (
    compress,
    extract_offline,
    sentences,
    split_transcript,
    summarise,
    topic_name,
)

TOPIC = [
    "The billing service listens on port 8080.",
    "Billing invoices are generated on the 1st of each month.",
    "The billing service runs in us-east-1.",
    "Alice likes her tea with milk.",
    "The billing service now listens on port 9443.",
]
# Hand-made unit vectors: the three billing-service thoughts point the same way, the
# invoice thought half-way, the tea thought elsewhere; the two port thoughts are near twins.
EMBEDDINGS = [
    [1.0, 0.0, 0.0, 0.1],
    [0.6, 0.8, 0.0, 0.0],
    [0.9, 0.1, 0.4, 0.0],
    [0.0, 0.0, 0.0, 1.0],
    [1.0, 0.0, 0.0, 0.12],
]

TRANSCRIPT = """\
User: hi!
Assistant: Hello! How can I help?
User: we moved the billing service to port 9443
and it now runs in eu-west-1.
Assistant: Got it. I will note that billing listens on 9443 in eu-west-1.
User: thanks
"""


def test_summary_keeps_the_most_central_thoughts_within_the_word_limit() -> None:
    summary = summarise(TOPIC, EMBEDDINGS, max_words=20)
    assert len(summary.split()) <= 20
    assert "tea" not in summary  # the outlier is the least central
    # Of the two near-duplicate port thoughts only the newer is kept: newer wins.
    assert "9443" in summary and "8080" not in summary
    assert summary == summarise(TOPIC, EMBEDDINGS, max_words=20)


def test_summary_keeps_thoughts_in_their_order_and_uses_given_scores() -> None:
    scores = [0.1, 0.9, 0.2, 0.8, 0.3]
    summary = summarise(TOPIC, scores=scores, max_words=18)
    assert summary == f"{TOPIC[1]} {TOPIC[3]}"
    everything = summarise(TOPIC, EMBEDDINGS, max_words=1000, duplicate_similarity=1.01)
    assert everything == " ".join(TOPIC)


def test_summary_without_embeddings_uses_word_overlap() -> None:
    summary = summarise(TOPIC, max_words=25)
    assert "billing service" in summary and "tea" not in summary
    assert summarise([], max_words=10) == ""
    long = "word " * 50
    assert summarise([long], max_words=5) == "word word word word word…"
    with pytest.raises(ValueError):
        summarise(TOPIC, EMBEDDINGS[:2])


def test_compression_gives_a_summary_and_a_line() -> None:
    text = (
        "The billing service moved to port 9443 after the TLS migration in May. "
        "Clients must update their base URL. The old port 8080 stays open until July "
        "for clients that cannot update quickly, after which it will be closed for good."
    )
    summary, line = compress(text, max_summary_words=20)
    assert summary == (
        "The billing service moved to port 9443 after the TLS migration in May. "
        "Clients must update their base URL."
    )
    assert line == "The billing service moved to port 9443 after the TLS migration in May."
    _, short = compress(text, max_line_chars=40)
    assert short == "The billing service moved to port 9443…" and len(short) <= 40
    assert compress("") == ("", "")
    assert compress(text) == compress(text)


def test_a_transcript_splits_into_speaker_turns() -> None:
    assert split_transcript(TRANSCRIPT) == [
        "User: hi!",
        "Assistant: Hello! How can I help?",
        "User: we moved the billing service to port 9443 and it now runs in eu-west-1.",
        "Assistant: Got it. I will note that billing listens on 9443 in eu-west-1.",
        "User: thanks",
    ]


def test_text_without_speakers_splits_into_sentences() -> None:
    text = "We deploy on Tuesdays. The API runs on 9443!\n- Alice owns billing\n- Bob owns auth"
    assert split_transcript(text) == [
        "We deploy on Tuesdays.",
        "The API runs on 9443!",
        "Alice owns billing",
        "Bob owns auth",
    ]
    assert sentences("  ") == []


def test_offline_extraction_drops_small_talk() -> None:
    thoughts = extract_offline(TRANSCRIPT)
    assert thoughts == [
        ExtractedThought(
            kind="fact",
            content="User: we moved the billing service to port 9443 and it now runs in eu-west-1.",
            salience=0.5,
            topic_hint="billing service port eu-west-1",
        ),
        ExtractedThought(
            kind="fact",
            content="Assistant: I will note that billing listens on 9443 in eu-west-1.",
            salience=0.5,
            topic_hint="billing eu-west-1",
        ),
    ]
    assert extract_offline("ok. thanks!") == []
    assert extract_offline(TRANSCRIPT) == thoughts


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("The billing service now listens on port 9443", "billing service port"),
        ("We switched from Jenkins to GitHub Actions for CI", "Jenkins GitHub Actions CI"),
        ("Deploys happen every Tuesday at 10:00", "deploys Tuesday"),
        ("User: the staging database is refreshed nightly", "staging database nightly"),
        ("ok", "ok"),
        ("", "untitled"),
    ],
)
def test_topic_names_are_a_few_salient_words(text: str, name: str) -> None:
    assert topic_name(text) == name
