"""The writing rules for texts a model writes (domain/writing.py): what each style forbids,
quoted speech, trimming at sentence and word boundaries, the recorder, and two properties:
``written`` returns a text that breaks nothing or raises; ``repaired`` returns a clean
prefix of the text or None."""

from __future__ import annotations

from typing import Annotated

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import AfterValidator, BaseModel, ValidationError

from thoughtgraph.domain.writing import (
    MAX_CHARS,
    Outcome,
    Style,
    Violation,
    check,
    checked,
    normalised,
    recording,
    repaired,
    sentences,
    thought_style,
    violations,
    written,
)

LONG_SENTENCE = "The billing service " + "keeps a ledger of every invoice " * 12 + "it sends."


@pytest.mark.parametrize(
    ("text", "style", "broken"),
    [
        ("Alice prefers green tea to coffee.", Style.SEMANTIC, []),
        ("He prefers green tea to coffee.", Style.SEMANTIC, [Violation.PRONOUN]),
        ("Alice and Bob keep their notes in Obsidian.", Style.SEMANTIC, [Violation.PRONOUN]),
        ("I think Alice prefers tea.", Style.SEMANTIC, [Violation.AI_VOICE]),
        ("Your deploy runs on Tuesdays.", Style.SEMANTIC, [Violation.ADDRESSES_READER]),
        ("The cache is Redis. It runs on port 6379.", Style.SEMANTIC, []),  # "it" is allowed
        ("One. Two. Three.", Style.SEMANTIC, [Violation.TOO_MANY_SENTENCES]),
        ("x " * 150, Style.SEMANTIC, [Violation.TOO_LONG]),
        ("   ", Style.SEMANTIC, [Violation.EMPTY]),
        ("...", Style.EPISODIC, [Violation.EMPTY]),
        # Episodic and insight texts may say he or they; never I, we or you.
        ("The team chose Postgres because they need joins.", Style.EPISODIC, []),
        ("We chose Postgres.", Style.EPISODIC, [Violation.AI_VOICE]),
        ("Alice works best in the morning; she blocks mornings for focus.", Style.INSIGHT, []),
        ("You seem to work best in the morning.", Style.INSIGHT, [Violation.ADDRESSES_READER]),
        # A summary has no length or sentence limit, but no AI voice either.
        ("Billing runs on 9443. " * 20, Style.SUMMARY, []),
        ("Our billing service runs on 9443.", Style.SUMMARY, [Violation.AI_VOICE]),
    ],
)
def test_each_style_has_its_rules(text: str, style: Style, broken: list[Violation]) -> None:
    assert violations(text, style) == broken


def test_a_text_can_break_several_rules_listed_in_a_stable_order() -> None:
    text = "I told you. He agreed. " + "Then everything moved on. " * 12
    assert violations(text, Style.SEMANTIC) == [
        Violation.TOO_LONG,
        Violation.TOO_MANY_SENTENCES,
        Violation.AI_VOICE,
        Violation.ADDRESSES_READER,
        Violation.PRONOUN,
    ]


@pytest.mark.parametrize(
    "text",
    [
        'Alice said "I will ship the release on Friday".',
        "Bob wrote “we never deploy on Fridays” in the runbook.",
    ],
)
def test_quoted_speech_is_the_speaker_s_own(text: str) -> None:
    assert violations(text, Style.SEMANTIC) == []
    assert written(text, Style.SEMANTIC) == text


def test_an_unquoted_pronoun_beside_a_quote_still_counts() -> None:
    assert violations('Alice said "I will ship it" and he agreed.', Style.SEMANTIC) == [
        Violation.PRONOUN
    ]


def test_too_many_sentences_are_trimmed_at_a_sentence_boundary() -> None:
    text = "The team moved the queue to Redis. Consumer groups are trimmed nightly. Done."
    assert repaired(text, Style.EPISODIC) == (
        "The team moved the queue to Redis. Consumer groups are trimmed nightly."
    )
    assert check(text, Style.EPISODIC).outcome is Outcome.TRIMMED


def test_a_long_text_keeps_the_sentences_that_fit() -> None:
    first = "The billing service listens on port 9443 since the March migration."
    text = f"{first} {LONG_SENTENCE}"
    assert len(text) > MAX_CHARS
    assert repaired(text, Style.SEMANTIC) == first


def test_one_long_sentence_is_cut_at_a_word_and_marked() -> None:
    fixed = repaired(LONG_SENTENCE, Style.SEMANTIC)
    assert fixed is not None and fixed.endswith("…") and len(fixed) <= MAX_CHARS
    kept = fixed.removesuffix("…")
    assert LONG_SENTENCE.startswith(kept)
    assert LONG_SENTENCE[len(kept)] == " "  # the cut falls between words


def test_what_trimming_cannot_fix_is_not_repaired() -> None:
    assert repaired("He prefers tea. He drinks it daily. Every day.", Style.SEMANTIC) is None
    assert repaired("", Style.SEMANTIC) is None


def test_written_passes_trims_or_names_the_broken_rules() -> None:
    assert written("  Alice   prefers tea. ", Style.SEMANTIC) == "Alice prefers tea."
    assert written("A. B. C.", Style.SEMANTIC) == "A. B."
    with pytest.raises(ValueError, match=r"pronoun.*third-person"):
        written("She prefers tea.", Style.SEMANTIC)


def test_sentences_do_not_split_inside_numbers_or_versions() -> None:
    assert sentences("Postgres 16.2 is used. The port is 5432.") == [
        "Postgres 16.2 is used.",
        "The port is 5432.",
    ]


def test_a_title_full_stop_ends_no_sentence() -> None:
    assert sentences("Dr. Ines Pardo took over from Mr. Hale. He retired.") == [
        "Dr. Ines Pardo took over from Mr. Hale.",
        "He retired.",
    ]


def test_thought_kinds_map_to_styles() -> None:
    assert thought_style("fact") is Style.SEMANTIC
    assert thought_style("decision") is Style.SEMANTIC
    assert thought_style("episode_note") is Style.EPISODIC
    assert thought_style("insight") is Style.INSIGHT


class _Answer(BaseModel):
    text: Annotated[str, AfterValidator(checked(Style.SEMANTIC))]


def test_a_response_model_field_reports_each_outcome_to_the_recorder() -> None:
    seen: list[tuple[Style, Outcome]] = []
    context = recording(lambda style, outcome: seen.append((style, outcome)))
    assert _Answer.model_validate({"text": "Alice likes tea."}, context=context).text
    assert _Answer.model_validate({"text": "A. B. C."}, context=context).text == "A. B."
    with pytest.raises(ValidationError, match="writing rules"):
        _Answer.model_validate({"text": "He likes tea."}, context=context)
    assert seen == [
        (Style.SEMANTIC, Outcome.PASSED),
        (Style.SEMANTIC, Outcome.TRIMMED),
        (Style.SEMANTIC, Outcome.REJECTED),
    ]
    # Without a recorder in the context the field validates all the same.
    assert _Answer.model_validate({"text": "A. B. C."}).text == "A. B."


# Sentences of words (some pronouns, some long), joined by varied whitespace.
_WORDS = st.sampled_from(
    [
        "Alice",
        "the",
        "service",
        "runs",
        "on",
        "9443",
        "he",
        "they",
        "I",
        "you",
        "it",
        "v1.2",
        "migration",
        '"I',
        'agree"',
        "supercalifragilistic" * 3,
        "deployed",
        "Redis",
        "-",
        ",",
    ]
)
_SENTENCE = st.lists(_WORDS, min_size=1, max_size=30).map(lambda ws: " ".join(ws) + ".")
_TEXTS = st.one_of(
    st.text(max_size=400),
    st.lists(_SENTENCE, min_size=1, max_size=6).flatmap(
        lambda ss: st.sampled_from([" ", "  ", "\n"]).map(lambda sep: sep.join(ss))
    ),
)
_STYLES = st.sampled_from(list(Style))


@given(text=_TEXTS, style=_STYLES)
def test_written_either_raises_or_breaks_nothing(text: str, style: Style) -> None:
    try:
        result = written(text, style)
    except ValueError:
        assert check(text, style).outcome is Outcome.REJECTED
        return
    assert violations(result, style) == []


@given(text=_TEXTS, style=_STYLES)
def test_repaired_is_a_clean_prefix_of_the_text(text: str, style: Style) -> None:
    fixed = repaired(text, style)
    if fixed is None:
        return
    assert violations(fixed, style) == []
    assert normalised(text).startswith(fixed.removesuffix("…"))
    assert len(fixed) <= len(normalised(text))
