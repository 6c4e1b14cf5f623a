"""Multi-fact extraction (seed 001 §13): a long contribution, written as it is, is split
in the background into up to five candidate facts, of which at most three are written,
each an original that names the contribution as its source (no lineage edge: the
contribution stays current and ranks as before) and passed the near-duplicate check;
the scan after the write then checks them for supersession like any new thought.
Each user has a daily allowance of extraction calls.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

import structlog
from pydantic import BaseModel

from thoughtgraph.domain.errors import ConsentRequiredError
from thoughtgraph.domain.judgement import UsageMeter
from thoughtgraph.domain.knowledge import stable_thought_id
from thoughtgraph.domain.models import Thought, ThoughtKind, TimeView
from thoughtgraph.domain.ops import OpsNode
from thoughtgraph.domain.scopes import Viewer
from thoughtgraph.domain.units import DAY_MS
from thoughtgraph.features.repositories import Repositories
from thoughtgraph.features.thoughts.service import ThoughtInput, ThoughtService
from thoughtgraph.llm.client import CALLS_WITH_REPAIR, LLMAnswerInvalid, LLMClient, LLMError
from thoughtgraph.llm.prompts import fact_extraction
from thoughtgraph.llm.prompts.fact_extraction import Fact
from thoughtgraph.ports.clock import Clock
from thoughtgraph.ports.services import Embeddings
from thoughtgraph.settings import Settings

log = structlog.get_logger(__name__)

MAX_WRITTEN = 3  # facts written per contribution, of up to five candidates
EXTRACTED_TAG = "extracted"


class ExtractionStatus(StrEnum):
    WRITTEN = "written"  # the candidates were checked; ``written`` may still be empty
    NO_MODEL = "skipped: no model"
    SHORT = "skipped: short"
    GONE = "skipped: gone"
    PERSON_FIELD = "skipped: person field"  # changes only by consent
    CAP = "skipped: daily cap"
    REJECTED = "rejected"  # the answer stayed invalid after the repair round
    FAILED = "failed"  # the model failed after its retries


class ExtractionResult(BaseModel):
    namespace: str
    thought_id: str
    status: ExtractionStatus
    candidates: int = 0
    duplicates: int = 0
    written: list[str] = []


class FactExtractor:
    def __init__(
        self,
        repos: Repositories,
        thoughts: ThoughtService,
        embedder: Embeddings,
        llm: LLMClient | None,
        settings: Settings,
        clock: Clock,
    ) -> None:
        self._repos = repos
        self._thoughts = thoughts
        self._embedder = embedder
        self._llm = llm
        self._settings = settings
        self._clock = clock

    async def extract(self, namespace: str, thought_id: str) -> ExtractionResult:
        result = ExtractionResult(
            namespace=namespace, thought_id=thought_id, status=ExtractionStatus.WRITTEN
        )
        if self._llm is None:
            return result.model_copy(update={"status": ExtractionStatus.NO_MODEL})
        source = (await self._repos.thoughts.get_many(namespace, [thought_id])).get(thought_id)
        if source is None or not source.is_current:
            return result.model_copy(update={"status": ExtractionStatus.GONE})
        if len(source.content) < self._settings.extraction_min_chars:
            return result.model_copy(update={"status": ExtractionStatus.SHORT})
        user = source.owner_id or source.agent_id
        day = self._clock.now_ms() // DAY_MS
        cap = self._settings.extraction_daily_cap
        if not await self._repos.extraction.spend(namespace, user, day, cap):
            return result.model_copy(update={"status": ExtractionStatus.CAP})
        usage = UsageMeter(max_calls=CALLS_WITH_REPAIR, namespace=namespace)
        try:
            answer = await self._llm.complete(fact_extraction.PROMPT, usage, source.content)
        except LLMAnswerInvalid as exc:
            log.warning("extraction.rejected", thought=thought_id, error=exc.message)
            return result.model_copy(update={"status": ExtractionStatus.REJECTED})
        except LLMError as exc:
            log.warning("extraction.failed", thought=thought_id, error=exc.message)
            return result.model_copy(update={"status": ExtractionStatus.FAILED})
        return await self._write(source, answer.facts, result)

    async def _write(
        self, source: Thought, facts: Sequence[Fact], result: ExtractionResult
    ) -> ExtractionResult:
        """Up to MAX_WRITTEN of the facts, each an original taken from the contribution, past
        the near-duplicate check; the write queues their scan like any other's."""
        texts = [fact.content for fact in facts]
        vectors = await self._embedder.async_embed_documents(texts) if texts else []
        written: list[str] = []
        duplicates = 0
        view = TimeView(now_ms=self._clock.now_ms(), viewer=Viewer.everyone())
        threshold = self._settings.dedupe_similarity
        for i, (fact, vector) in enumerate(zip(facts, vectors, strict=True)):
            if len(written) >= MAX_WRITTEN:
                break
            tid = stable_thought_id("fact", source.id, str(i))
            hits = await self._repos.thoughts.nearest(source.namespace, vector, 2, threshold, view)
            if any(h.thought.id not in (source.id, tid) for h in hits):
                duplicates += 1  # said already: the near-duplicate check
                continue
            try:
                await self._thoughts.write_original(
                    self._fact_input(source, fact),
                    thought_id=tid,
                    node=OpsNode.WORKER,
                    taken_from=[source.id],
                )
            except ConsentRequiredError:
                return result.model_copy(update={"status": ExtractionStatus.PERSON_FIELD})
            written.append(tid)
        log.info(
            "extraction.written", thought=source.id, candidates=len(facts), written=len(written)
        )
        return result.model_copy(
            update={"candidates": len(facts), "duplicates": duplicates, "written": written}
        )

    @staticmethod
    def _fact_input(source: Thought, fact: Fact) -> ThoughtInput:
        return ThoughtInput(
            content=fact.content,
            agent_id=source.agent_id,
            agent_name=source.agent_name,
            namespace=source.namespace,
            context=f"extracted from thought {source.id}",
            session_id=source.session_id,
            tags=tuple(dict.fromkeys([*source.tags, EXTRACTED_TAG])),
            kind=ThoughtKind.FACT,
            importance=fact.importance,
            category=fact.category or None,
            scope=source.scope,
            owner_id=source.owner_id,
        )
