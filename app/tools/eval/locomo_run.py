"""``thoughtgraph eval locomo``: each conversation ingested into its own namespace through
the services, every question asked of every strategy, evidence recall counted.

Ingestion: one thought per turn ("Speaker: text", plus the photo's caption), contributed
by the speaker, in a session of its own (``sessionId``), valid from and created at the
session's date (turn N one second after turn N-1, so the session keeps its order). The
service reads creation time from its clock, so the eval builds the services over a clock
it sets; turns are embedded in batches first (the contributions then find their vectors
ready), which is where ingestion spends its time.
"""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from thoughtgraph.container import build_services
from thoughtgraph.domain.models import SearchHit, TimeView
from thoughtgraph.domain.units import DAY_MS
from thoughtgraph.features.services import Services
from thoughtgraph.features.thoughts.service import ThoughtInput
from thoughtgraph.llm.embedders import TextEmbedder
from thoughtgraph.runtime import Runtime
from thoughtgraph.tools.eval.locomo import Conversation, Question
from thoughtgraph.tools.eval.locomo_strategies import Retriever

TURN_STEP_MS = 1000


class EvalClock:
    """A clock the eval moves: to each turn's time while ingesting, then to the day
    after the conversation's last session while asking."""

    def __init__(self, at_ms: int = 0) -> None:
        self.at_ms = at_ms

    def now_ms(self) -> int:
        return self.at_ms


class PrecomputedEmbeddings:
    """An embedder that remembers every vector it made: ``warm`` embeds many texts at once
    (the inner embedder batches them), later single calls for the same text cost nothing."""

    def __init__(self, inner: TextEmbedder) -> None:
        self._inner = inner
        self._known: dict[str, list[float]] = {}
        self.name = inner.name

    @property
    def dimension(self) -> int:
        return self._inner.dimension

    async def warm(self, texts: Sequence[str]) -> None:
        todo = list(dict.fromkeys(t for t in texts if t not in self._known))
        if todo:
            vectors = await self._inner.async_embed_documents(todo)
            self._known.update(zip(todo, vectors, strict=True))

    async def async_embed_query(self, text: str) -> list[float]:
        return (await self.async_embed_documents([text]))[0]

    async def async_embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        await self.warm(texts)
        return [self._known[t] for t in texts]


@dataclass
class QuestionResult:
    sample_id: str
    question: Question
    ranked: dict[str, list[str]]  # strategy -> turn ids, best first (up to the largest k)


@dataclass
class EvalRun:
    engine: str
    ks: tuple[int, ...]
    strategies: tuple[str, ...]
    results: list[QuestionResult] = field(default_factory=list)
    conversations: int = 0
    turns: int = 0
    skipped_questions: int = 0
    dropped_evidence: int = 0
    ingest_s: float = 0.0
    ask_s: dict[str, float] = field(default_factory=dict)
    total_s: float = 0.0


def namespace_for(prefix: str, sample_id: str) -> str:
    safe = re.sub(r"[^A-Za-z0-9_-]", "-", sample_id)[:40]
    return f"{prefix}-{safe}"


def speaker_id(name: str) -> str:
    """An agent id for a speaker (identifiers are ASCII): readable part plus a hash."""
    readable = re.sub(r"[^A-Za-z0-9_-]", "", name)[:40] or "speaker"
    return f"{readable}-{hashlib.sha1(name.encode()).hexdigest()[:6]}"


async def ingest(
    services: Services,
    clock: EvalClock,
    embedder: PrecomputedEmbeddings,
    namespace: str,
    conversation: Conversation,
    progress: Callable[[int], None],
) -> dict[str, str]:
    """Contribute every turn; returns thought id -> turn id."""
    await embedder.warm([turn.content for turn in conversation.turns])
    turn_of: dict[str, str] = {}
    for session in conversation.sessions:
        session_id = f"{conversation.sample_id}-s{session.number}"
        session_id = re.sub(r"[^A-Za-z0-9_.:@-]", "-", session_id)
        for turn in session.turns:
            at = session.at_ms + turn.index * TURN_STEP_MS
            clock.at_ms = at
            written = await services.thoughts.contribute(
                ThoughtInput(
                    content=turn.content,
                    agent_id=speaker_id(turn.speaker),
                    agent_name=turn.speaker,
                    namespace=namespace,
                    session_id=session_id,
                    tags=(f"session-{session.number}",),
                    valid_from_ms=at,
                )
            )
            turn_of[written.thought.id] = turn.dia_id
            progress(1)
    return turn_of


def asking_view(clock: EvalClock) -> Callable[[], TimeView]:
    return lambda: TimeView(now_ms=clock.now_ms())


async def run_locomo(
    runtime: Runtime,
    conversations: Sequence[Conversation],
    *,
    ks: tuple[int, ...],
    build_strategies: Callable[[Services, PrecomputedEmbeddings, EvalClock], list[Retriever]],
    prefix: str,
    progress: Callable[[str, int], Callable[[int], None]],
) -> EvalRun:
    """Ingest, then ask. ``progress(label, total)`` gives a step callback."""
    clock = EvalClock()
    embedder = PrecomputedEmbeddings(runtime.embedder)
    services = build_services(runtime.store, embedder, settings=runtime.settings, clock=clock)
    strategies = build_strategies(services, embedder, clock)
    run = EvalRun(engine=runtime.store.engine, ks=ks, strategies=tuple(s.name for s in strategies))
    try:
        for conversation in conversations:
            namespace = namespace_for(prefix, conversation.sample_id)
            started = time.monotonic()
            step = progress(f"ingest {conversation.sample_id}", len(conversation.turns))
            turn_of = await ingest(services, clock, embedder, namespace, conversation, step)
            run.ingest_s += time.monotonic() - started
            run.conversations += 1
            run.turns += len(conversation.turns)
            run.skipped_questions += conversation.skipped_questions
            run.dropped_evidence += conversation.dropped_evidence
            clock.at_ms = conversation.last_at_ms + DAY_MS
            await embedder.warm([q.text for q in conversation.questions])
            await _ask(run, strategies, namespace, conversation, turn_of, progress)
    finally:
        await services.close()
    return run


async def _ask(
    run: EvalRun,
    strategies: Sequence[Retriever],
    namespace: str,
    conversation: Conversation,
    turn_of: dict[str, str],
    progress: Callable[[str, int], Callable[[int], None]],
) -> None:
    deepest = max(run.ks)
    step = progress(f"ask {conversation.sample_id}", len(conversation.questions))
    for question in conversation.questions:
        ranked: dict[str, list[str]] = {}
        for strategy in strategies:
            started = time.monotonic()
            hits = await strategy.search(namespace, question.text, deepest)
            run.ask_s[strategy.name] = run.ask_s.get(strategy.name, 0.0) + (
                time.monotonic() - started
            )
            ranked[strategy.name] = _turn_ids(hits, turn_of)
        run.results.append(QuestionResult(conversation.sample_id, question, ranked))
        step(1)


def _turn_ids(hits: Sequence[SearchHit], turn_of: dict[str, str]) -> list[str]:
    """Turn ids of the hits, in rank order (one hit, one turn: every k stays honest)."""
    return [turn_of[hit.thought.id] for hit in hits if hit.thought.id in turn_of]
