"""Writing constraints for every thought a model writes (seed 001 §9).

Each style names what a good text of its kind looks like; :func:`violations` lists what
a text breaks, :func:`repaired` trims what trimming can fix (too long, too many
sentences). A response model validates its texts with :func:`written` (through
:func:`checked`): a text that trimming repairs passes trimmed; one that still breaks a
rule fails validation, which makes the LLM client ask the model once more with the
error (the reprompt), and an answer that fails again is rejected and counted.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from enum import StrEnum
from typing import Any, NamedTuple

from pydantic import ValidationInfo

from thoughtgraph.domain.language.words import rejoin_titles

MAX_CHARS = 280
MAX_SENTENCES = 2

# The AI itself, in any text about a person or the world.
_AI_SELF = r"\b(?:I|me|my|mine|myself|we|us|our|ours|ourselves)\b"
# The reader, addressed.
_SECOND_PERSON = r"\b(?:you|your|yours|yourself|yourselves)\b"
# Pronouns standing for a person not named: a fact must name who it is about. ("it" is
# left alone: it mostly points inside its own sentence, "when it is specific".)
_THIRD_PERSON = r"\b(?:he|she|him|her|his|hers|himself|herself|they|them|their|theirs|themselves)\b"
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[]?[A-Z0-9])")


class Style(StrEnum):
    SEMANTIC = "semantic"  # a fact: self-contained, third person, no pronouns
    EPISODIC = "episodic"  # an episode note: what was discussed, decided or done
    INSIGHT = "insight"  # about a person: third person, never the AI speaking
    SUMMARY = "summary"  # a topic's summary: a paragraph, no AI voice, no address


class Violation(StrEnum):
    EMPTY = "empty"
    TOO_LONG = "too_long"
    TOO_MANY_SENTENCES = "too_many_sentences"
    AI_VOICE = "ai_voice"  # I, we, our...
    ADDRESSES_READER = "addresses_reader"  # you, your...
    PRONOUN = "pronoun"  # he, she, it, they... instead of a name


# Per style: (max chars, max sentences, pronoun patterns it must not use).
_RULES: dict[Style, tuple[int | None, int | None, tuple[tuple[Violation, str], ...]]] = {
    Style.SEMANTIC: (
        MAX_CHARS,
        MAX_SENTENCES,
        (
            (Violation.AI_VOICE, _AI_SELF),
            (Violation.ADDRESSES_READER, _SECOND_PERSON),
            (Violation.PRONOUN, _THIRD_PERSON),
        ),
    ),
    Style.EPISODIC: (
        MAX_CHARS,
        MAX_SENTENCES,
        ((Violation.AI_VOICE, _AI_SELF), (Violation.ADDRESSES_READER, _SECOND_PERSON)),
    ),
    Style.INSIGHT: (
        MAX_CHARS,
        MAX_SENTENCES,
        ((Violation.AI_VOICE, _AI_SELF), (Violation.ADDRESSES_READER, _SECOND_PERSON)),
    ),
    Style.SUMMARY: (
        None,
        None,
        ((Violation.AI_VOICE, _AI_SELF), (Violation.ADDRESSES_READER, _SECOND_PERSON)),
    ),
}


def normalised(text: str) -> str:
    return " ".join(text.split())


def sentences(text: str) -> list[str]:
    found = [s.strip() for s in rejoin_titles(_SENTENCE_END.split(normalised(text)))]
    return [s for s in found if s]


def _without_quotes(text: str) -> str:
    """Quoted words are someone's own (a person said "I will"), not the writer's voice."""
    return re.sub(r"\"[^\"]*\"|“[^”]*”", " ", text)


def violations(text: str, style: Style) -> list[Violation]:
    """What ``text`` breaks of ``style``'s rules, in a stable order; empty: it passes."""
    body = normalised(text)
    if not body or not re.search(r"\w", body):
        return [Violation.EMPTY]
    max_chars, max_sentences, patterns = _RULES[style]
    found: list[Violation] = []
    if max_chars is not None and len(body) > max_chars:
        found.append(Violation.TOO_LONG)
    if max_sentences is not None and len(sentences(body)) > max_sentences:
        found.append(Violation.TOO_MANY_SENTENCES)
    unquoted = _without_quotes(body)
    for violation, pattern in patterns:
        if re.search(pattern, unquoted, flags=re.IGNORECASE):
            found.append(violation)
    return found


TRIMMABLE = frozenset({Violation.TOO_LONG, Violation.TOO_MANY_SENTENCES})


def repaired(text: str, style: Style) -> str | None:
    """``text`` trimmed to its style's sentences and length, at a sentence or word
    boundary; None when trimming cannot repair it (a rule other than length is broken,
    or nothing is left)."""
    if not set(violations(text, style)) <= TRIMMABLE:
        return None
    max_chars, max_sentences, _ = _RULES[style]
    body = normalised(text)
    if max_sentences is not None:
        body = " ".join(sentences(body)[:max_sentences])
    if max_chars is not None and len(body) > max_chars:
        kept = sentences(body)
        while len(kept) > 1 and len(" ".join(kept)) > max_chars:
            kept.pop()
        body = " ".join(kept)
        if len(body) > max_chars:  # one long sentence: cut at a word, end it
            body = body[: max_chars - 1].rsplit(" ", 1)[0].rstrip(",;:- ") + "…"
    return body if not violations(body, style) else None


class Outcome(StrEnum):
    """What became of one text a model wrote (counted: ``tg_writing_checks_total``)."""

    PASSED = "passed"  # as written
    TRIMMED = "trimmed"  # stored trimmed
    REJECTED = "rejected"  # invalid: the model is asked again (or the answer is refused)


class Checked(NamedTuple):
    outcome: Outcome
    text: str | None  # as stored; None when rejected
    broken: tuple[Violation, ...]  # what the text as written broke


def check(text: str, style: Style) -> Checked:
    """One text judged against ``style``: passed, trimmed (and the trimmed text) or
    rejected."""
    broken = tuple(violations(text, style))
    if not broken:
        return Checked(Outcome.PASSED, normalised(text), broken)
    fixed = repaired(text, style)
    if fixed is not None:
        return Checked(Outcome.TRIMMED, fixed, broken)
    return Checked(Outcome.REJECTED, None, broken)


def written(text: str, style: Style) -> str:
    """The text as stored: as it is when it passes, trimmed when trimming repairs it.
    Raises ValueError naming the broken rules otherwise (a response model's validator:
    the model is asked again with this message)."""
    result = check(text, style)
    if result.text is None:
        raise _rejection(result, style)
    return result.text


def _rejection(result: Checked, style: Style) -> ValueError:
    broken = ", ".join(v.value for v in result.broken)
    return ValueError(f"breaks the writing rules ({broken}): {RULE_TEXT[style]}")


# Told of every text a response model checks: (style, outcome).
WritingRecorder = Callable[[Style, Outcome], None]
# Where a validation context (``model_validate_json(..., context=...)``) holds the recorder.
RECORDER_KEY = "writing_recorder"


def recording(recorder: WritingRecorder) -> dict[str, Any]:
    """The pydantic validation context that makes :func:`checked` fields report to
    ``recorder``."""
    return {RECORDER_KEY: recorder}


def checked(style: Style) -> Callable[[str, ValidationInfo], str]:
    """A pydantic AfterValidator for a response model's text field of ``style``; it
    reports each outcome to the recorder in the validation context, if there is one."""

    def validate(text: str, info: ValidationInfo) -> str:
        return checked_text(text, style, info.context)

    return validate


def checked_text(text: str, style: Style, context: Mapping[str, Any] | None) -> str:
    """:func:`written`, reporting the outcome to ``context``'s recorder (see
    :func:`recording`); for validators that pick the style from another field."""
    result = check(text, style)
    recorder = (context or {}).get(RECORDER_KEY)
    if recorder is not None:
        recorder(style, result.outcome)
    if result.text is None:
        raise _rejection(result, style)
    return result.text


def thought_style(kind: str) -> Style:
    """The style of an extracted thought of ``kind`` (ExtractedKind): an episode note is
    episodic, an insight about a person is an insight, anything else a fact."""
    if kind == "episode_note":
        return Style.EPISODIC
    if kind == "insight":
        return Style.INSIGHT
    return Style.SEMANTIC


RULE_TEXT = {
    Style.SEMANTIC: (
        "a complete, self-contained, third-person statement that names its subject, with "
        f"no pronouns; neutral tone; 1-2 sentences; at most {MAX_CHARS} characters"
    ),
    Style.EPISODIC: (
        "past tense; 1-2 sentences; what was discussed, decided or done; no I/we/you; "
        f"at most {MAX_CHARS} characters"
    ),
    Style.INSIGHT: (
        "third person about the person; never I, we or you (the AI does not speak); "
        f"1-2 sentences; at most {MAX_CHARS} characters"
    ),
    Style.SUMMARY: "one neutral paragraph; never I, we or you",
}
