"""Topic summaries: the LLM when one is configured (newer wins, superseded ids listed),
otherwise extractive (the most central thoughts within the word limit)."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

import numpy as np
import structlog

from thoughtgraph.domain.judgement import UsageMeter
from thoughtgraph.domain.models import Thought
from thoughtgraph.llm.client import LLMClient, LLMError

log = structlog.get_logger(__name__)
OFFLINE_SUMMARISER = "extractive"


@dataclass
class SummaryResult:
    summary: str
    summariser: str
    superseded: list[tuple[str, str]] = field(default_factory=list)  # (newer, older)
    name: str | None = None  # the topic's name as its members now read; None: keep it


def _newer_most_similar(
    older_id: str, members: Sequence[tuple[Thought, Sequence[float]]]
) -> str | None:
    """The thought that most plausibly superseded ``older_id``: the most similar one
    learned after it."""
    by_id = {t.id: (t, e) for t, e in members}
    if older_id not in by_id:
        return None
    older, older_vec = by_id[older_id]
    best, best_score = None, -2.0
    for thought, vector in members:
        if thought.created_at_ms <= older.created_at_ms or thought.id == older_id:
            continue
        score = float(np.dot(np.asarray(vector), np.asarray(older_vec)))
        if score > best_score:
            best, best_score = thought.id, score
    return best


def offline_name(
    members: Sequence[tuple[Thought, Sequence[float]]], taken: Collection[str] = ()
) -> str | None:
    """The topic's key phrase over its members, ranked against their mean direction, and
    not one of ``taken`` (other topics' names, lower case) while another phrase is left;
    None when no member has a noun phrase (the name it has stays)."""
    from thoughtgraph.domain.language.keyphrases import UNTITLED, topic_name

    if not members:
        return None
    texts = [t.content for t, _ in members]
    vectors = [list(e) for _, e in members]
    usable = vectors if all(vectors) else None
    name = topic_name(texts, usable, taken=taken)
    return None if name == UNTITLED else name


class TopicSummariser:
    def __init__(self, llm: LLMClient | None, max_words: int) -> None:
        self._llm = llm
        self._max_words = max_words

    async def summarise(
        self,
        topic: str,
        members: Sequence[tuple[Thought, Sequence[float]]],
        usage: UsageMeter,
        taken: Collection[str] = (),
    ) -> SummaryResult:
        """``taken``: the names of the namespace's other topics (lower case)."""
        if self._llm is not None and not usage.exhausted:
            try:
                result = await self._with_llm(self._llm, topic, members, usage)
                if result.name is None:  # no name, or not one a person would write
                    result.name = offline_name(members, taken)
                return result
            except LLMError as exc:
                log.warning("topic_summary.llm_failed", topic=topic, error=str(exc))
        result = self._extractive(members)
        result.name = offline_name(members, taken)
        return result

    async def _with_llm(
        self,
        llm: LLMClient,
        topic: str,
        members: Sequence[tuple[Thought, Sequence[float]]],
        usage: UsageMeter,
    ) -> SummaryResult:
        from thoughtgraph.llm.prompts import topic_summary

        inputs = [
            topic_summary.ThoughtForSummary(id=t.id, text=t.content, at_ms=t.created_at_ms)
            for t, _ in members
        ]
        answer = await llm.complete(topic_summary.PROMPT, usage, inputs, self._max_words, topic)
        superseded = []
        for older_id in answer.superseded_ids:
            newer = _newer_most_similar(older_id, members)
            if newer is not None:
                superseded.append((newer, older_id))
        from thoughtgraph.domain.language.keyphrases import valid_name

        name = valid_name(answer.name)
        if answer.name and name is None:
            log.info("topic_summary.name_rejected", topic=topic, name=answer.name[:80])
        return SummaryResult(answer.summary, llm.model, superseded, name)

    def _extractive(self, members: Sequence[tuple[Thought, Sequence[float]]]) -> SummaryResult:
        from thoughtgraph.domain.language.extractive import summarise

        texts = [t.content for t, _ in members]
        vectors = [list(e) for _, e in members]
        return SummaryResult(
            summarise(texts, vectors, max_words=self._max_words), OFFLINE_SUMMARISER
        )
