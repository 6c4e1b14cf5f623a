"""Recall: a question answered from memory.

The question is searched; for when / what date / how long ago questions the relative
expressions in the hits ("yesterday", "last week") are resolved against the date each hit
was written, and those dates come with the answer. With an LLM configured the model
answers from the hits and the resolved dates (answer, confidence, reasoning, sources);
its sources must be among the hits. Without one, or when the model fails or answers out
of form, the answer is extractive: the best hit as written, with its resolved dates.

An agent with an allowlist (app/domain/allowlist.py) gets hits of its categories only:
the allowlist is a category filter applied in the store, as for search.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import structlog

from thoughtgraph.domain import validation as check
from thoughtgraph.domain.access import Principal
from thoughtgraph.domain.allowlist import AllowlistPolicy
from thoughtgraph.domain.judgement import UsageMeter
from thoughtgraph.domain.language.temporal import TemporalResolution, resolve
from thoughtgraph.domain.models import SearchHit, TimeView, ms_to_datetime
from thoughtgraph.domain.retrieval import MAX_LIMIT, RetrievalOptions
from thoughtgraph.features.access import Action, check_access, scoped
from thoughtgraph.features.search.options import within_allowlist
from thoughtgraph.features.search.service import SearchService
from thoughtgraph.llm.client import CALLS_WITH_REPAIR, LLMClient, LLMError

log = structlog.get_logger(__name__)

EXTRACTIVE = "extractive"
DEFAULT_K = 5
MAX_RECALL_K = MAX_LIMIT  # a recall reads what one search may return
# "When did ...", "What date ...", "How long ago ...", "On which day ...", "Since when ...".
_TEMPORAL_QUESTION = re.compile(
    r"^\W*(?:(?:and|so|but)\s+)?(?:(?:on|in|at|by|since|until|from)\s+)?"
    r"(?:when|what\s+(?:date|day|time|year|month|week)|which\s+(?:date|day|year|month|week)"
    r"|how\s+long\s+ago|how\s+many\s+(?:days|weeks|months|years)\s+ago)\b",
    re.IGNORECASE,
)


def asks_when(question: str) -> bool:
    """Whether the question asks for a time: its answer needs the resolved dates."""
    return _TEMPORAL_QUESTION.search(question) is not None


@dataclass(frozen=True)
class HitResolution:
    """A relative expression in one hit, resolved against the date the hit was written."""

    thought_id: str
    resolution: TemporalResolution


@dataclass(frozen=True)
class RecallAnswer:
    question: str
    answer: str
    confidence: float  # 0..1
    reasoning: str
    temporal: bool  # the question asks for a time, so dates were resolved
    requires_inference: bool
    resolutions: tuple[HitResolution, ...]
    sources: tuple[str, ...]  # ids of the hits the answer rests on
    hits: tuple[SearchHit, ...]
    answered_by: str  # the model, or "extractive"


def hit_resolutions(hits: Iterable[SearchHit]) -> tuple[HitResolution, ...]:
    return tuple(
        HitResolution(hit.thought.id, found)
        for hit in hits
        for found in resolve(hit.thought.content, hit.thought.effective_valid_from_ms)
    )


def _day(epoch_ms: int) -> str:
    return ms_to_datetime(epoch_ms).date().isoformat()


class RecallService:
    def __init__(
        self, search: SearchService, llm: LLMClient | None, allowlist: AllowlistPolicy
    ) -> None:
        self._search = search
        self._llm = llm
        self._allowlist = allowlist

    async def recall(
        self,
        namespace: str,
        question: str,
        *,
        k: int | None = None,
        current_only: bool | None = None,
        caller: Principal | None = None,
        agent: str | None = None,
        categories: Sequence[str] | None = None,
        resolve_dates: bool | None = None,
    ) -> RecallAnswer:
        """An answer from the k closest thoughts the reading agent may read: the one the
        caller's key is bound to, else ``agent``. ``resolve_dates`` None: resolve them when
        the question asks for a time."""
        check_access(caller, Action.READ, namespace)
        text = check.require_text("question", question, check.MAX_QUERY_CHARS)
        k = DEFAULT_K if k is None else k
        check.require_int_range("k", k, 1, MAX_RECALL_K)
        asked = [check.require_name("categories", name) for name in categories or ()]
        key_agent = caller.agent if caller is not None else None
        allowed = self._allowlist.readable_by(key_agent, agent, asked)
        view = self._search.view(current_only=bool(current_only))
        hits = await self._hits(namespace, text, k, scoped(view, caller, view.now_ms), allowed)
        temporal = asks_when(text) if resolve_dates is None else resolve_dates
        resolutions = hit_resolutions(hits) if temporal else ()
        if self._llm is not None and hits:
            reasoned = await self._reasoned(self._llm, text, hits, temporal, resolutions)
            if reasoned is not None:
                return reasoned
        return extractive_answer(text, hits, temporal, resolutions)

    async def _hits(
        self,
        namespace: str,
        question: str,
        k: int,
        view: TimeView,
        allowed: frozenset[str] | None,
    ) -> tuple[SearchHit, ...]:
        options = within_allowlist(RetrievalOptions(), allowed)
        if options is None:
            return ()
        found = await self._search.search(
            namespace,
            question,
            k=k,
            threshold=0.0,
            view=view,
            options=options,
        )
        return tuple(found)

    async def _reasoned(
        self,
        llm: LLMClient,
        question: str,
        hits: tuple[SearchHit, ...],
        temporal: bool,
        resolutions: tuple[HitResolution, ...],
    ) -> RecallAnswer | None:
        """The model's answer, or None (the caller falls back to extractive) when it fails,
        answers out of form, or rests its answer only on thoughts it was not given."""
        from thoughtgraph.llm.prompts import recall as prompt

        by_hit = resolutions or hit_resolutions(hits)  # the model always gets the dates
        memories = [
            prompt.MemoryForRecall(
                id=hit.thought.id,
                written=_day(hit.thought.effective_valid_from_ms),
                text=hit.thought.content,
                replaced=hit.superseded,
                resolved=tuple(
                    f'"{r.resolution.expression}" = {r.resolution.describe()}'
                    for r in by_hit
                    if r.thought_id == hit.thought.id
                ),
            )
            for hit in hits
        ]
        usage = UsageMeter(max_calls=CALLS_WITH_REPAIR)
        try:
            answer = await llm.complete(prompt.PROMPT, usage, question, memories)
        except LLMError as exc:
            log.warning("recall.llm_failed", code=exc.code, error=exc.message)
            return None
        hit_ids = {hit.thought.id for hit in hits}
        sources = tuple(dict.fromkeys(s for s in answer.sources if s in hit_ids))
        if answer.sources and not sources:
            log.warning("recall.llm_unknown_sources", sources=answer.sources[:10])
            return None
        return RecallAnswer(
            question=question,
            answer=answer.answer,
            confidence=answer.confidence,
            reasoning=answer.reasoning,
            temporal=temporal,
            requires_inference=answer.requires_inference,
            resolutions=resolutions,
            sources=sources,
            hits=hits,
            answered_by=llm.model,
        )


def extractive_answer(
    question: str,
    hits: tuple[SearchHit, ...],
    temporal: bool,
    resolutions: tuple[HitResolution, ...],
) -> RecallAnswer:
    """The offline answer: the best hit as written, with its dates when the question asks
    for a time; confidence is its similarity."""
    if not hits:
        return RecallAnswer(
            question=question,
            answer="No memory matches the question.",
            confidence=0.0,
            reasoning="Extractive: the search found no memory to answer from.",
            temporal=temporal,
            requires_inference=False,
            resolutions=(),
            sources=(),
            hits=(),
            answered_by=EXTRACTIVE,
        )
    best = hits[0]
    own = [r.resolution for r in resolutions if r.thought_id == best.thought.id]
    written = _day(best.thought.effective_valid_from_ms)
    answer, reasoning = (
        best.thought.content,
        (
            f"Extractive: no language model answered, so this is the closest memory "
            f"(similarity {best.similarity:.2f}) as written."
        ),
    )
    if temporal and own:
        dates = "; ".join(f"{r.expression} = {r.describe()}" for r in own)
        answer = f"{answer} [{dates}]"
        reasoning += f" Its relative dates are resolved against the day it was written, {written}."
    elif temporal:
        answer = f"{answer} [written {written}]"
        reasoning += " It names no relative date; the day it was written is given."
    return RecallAnswer(
        question=question,
        answer=answer,
        confidence=round(min(1.0, max(0.0, best.similarity)), 4),
        reasoning=reasoning,
        temporal=temporal,
        requires_inference=temporal and bool(own),
        resolutions=resolutions,
        sources=(best.thought.id,),
        hits=hits,
        answered_by=EXTRACTIVE,
    )
