"""Candidates from what the store holds: thoughts, contradictions, errors with their fixes,
topics. Pure: each builds one ``Candidate`` with its text at every level."""

from __future__ import annotations

from thoughtgraph.domain.context.compression import labelled, levels_of, one_line, pair_levels
from thoughtgraph.domain.context.model import Candidate, Level, Tier
from thoughtgraph.domain.knowledge import Contradiction, Topic
from thoughtgraph.domain.language.extractive import truncate_chars
from thoughtgraph.domain.models import Thought

TOPIC_SUMMARY_CHARS = 600


def similarity_confidence(similarity: float) -> float:
    """A search hit's similarity as the chance it is needed: 0.2 or less is noise, 0.8 or
    more a sure match (the local model's cosine scale)."""
    return round(max(0.0, min(1.0, (similarity - 0.2) / 0.6)), 3)


def thought_item(
    thought: Thought,
    tier: Tier,
    source: str,
    score: float,
    *,
    label: str | None = None,
    confidence: float = 0.5,
) -> Candidate:
    tag = label or thought.kind.value.replace("_", " ")
    return Candidate(
        key=thought.id,
        tier=tier,
        source=source,
        score=score,
        renderings=labelled(tag, levels_of(thought.content)),
        covers=frozenset({thought.id}),
        confidence=confidence,
    )


def contradiction_item(contradiction: Contradiction, older: Thought, newer: Thought) -> Candidate:
    """Both sides, the newer last, and how to decide it."""
    joined = pair_levels(older.content, newer.content, "vs newer:")
    resolve = f' (resolveContradiction id "{contradiction.id}")'
    renderings = {
        level: f"- [open contradiction, {contradiction.relation}] {text}"
        + (resolve if level in (Level.FULL, Level.SUMMARY) else "")
        for level, text in joined.items()
    }
    return Candidate(
        key=contradiction.id,
        tier=Tier.CRITICAL,
        source="contradiction",
        score=2.0 + contradiction.confidence,  # above everything else in tier 1
        renderings=renderings,
        covers=frozenset({contradiction.id, older.id, newer.id}),
        confidence=0.95,
    )


def error_item(error_hit: Thought, fix: Thought | None, similarity: float) -> Candidate:
    """A remembered error like one the agent just met, with its fix when one refined or
    superseded it."""
    if fix is None:
        renderings = labelled("similar error", levels_of(error_hit.content))
        covers = frozenset({error_hit.id})
    else:
        renderings = labelled("error → fix", pair_levels(error_hit.content, fix.content, "→ fix:"))
        covers = frozenset({error_hit.id, fix.id})
    return Candidate(
        key=error_hit.id,
        tier=Tier.CRITICAL,
        source="error",
        # An error with its fix outranks the fix met alone, which it covers anyway.
        score=1.0 + similarity + (0.5 if fix is not None else 0.0),
        renderings=renderings,
        covers=covers,
        confidence=similarity_confidence(similarity),
    )


def topic_summary_item(topic: Topic, score: float) -> Candidate | None:
    if not topic.summary:
        return None
    summary = truncate_chars(one_line(topic.summary), TOPIC_SUMMARY_CHARS)
    levels = levels_of(summary)
    renderings = {
        level: f"- [topic {topic.name}] {levels[level]}"
        for level in (Level.SUMMARY, Level.COMPRESSED)
    }
    return Candidate(
        key=f"summary:{topic.id}",
        tier=Tier.BACKGROUND,
        source="topic_summary",
        score=score,
        renderings=renderings,
        covers=frozenset({f"summary:{topic.id}"}),
        confidence=0.4,
    )


def topic_index_item(topic: Topic, score: float) -> Candidate:
    """An "ask me about" entry: the topic's name, size and id to expand it with."""
    line = f'- {topic.name} ({topic.thought_count}): topic id "{topic.id}"'
    return Candidate(
        key=topic.id,
        tier=Tier.INDEX,
        source="topic_index",
        score=score,
        renderings={Level.INDEX: line},
        covers=frozenset({topic.id}),
        confidence=0.25,
    )
