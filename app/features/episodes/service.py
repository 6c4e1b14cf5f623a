"""Episodes: a transcript is kept as
an Episode (narrative, summary, one-line compression, index label, artifacts) and the
thoughts worth remembering are extracted from it, each PART_OF the episode.

With an LLM the extraction is typed and salient; without one, the fallback: turns
(or sentences) become ``fact`` thoughts with salience 0.5. Ids come from the transcript,
so ingesting the same transcript again returns the same episode and writes nothing new.

A conversation given as structured turns (``turns``) is not extracted: each turn becomes a
thought by its speaker, in the episode's session, valid from the turn's time (``turns``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import structlog

from thoughtgraph.domain import validation as check
from thoughtgraph.domain.changes import Actor
from thoughtgraph.domain.errors import InvalidInputError, MutualExclusionError
from thoughtgraph.domain.judgement import ExtractedThought, UsageMeter
from thoughtgraph.domain.knowledge import Artifact, Episode, stable_id, stable_thought_id
from thoughtgraph.domain.models import ThoughtKind
from thoughtgraph.domain.ops import NO_OPS_EVENTS, OpsEvents, OpsNode, OpsStatus
from thoughtgraph.domain.scopes import Scope
from thoughtgraph.features.access import Action, Principal, check_access, scope_for, viewer_of
from thoughtgraph.features.episodes.turns import (
    CheckedTurn,
    Turn,
    check_turns,
    episode_id_of_turns,
    narrative,
)
from thoughtgraph.features.repositories import Repositories
from thoughtgraph.features.thoughts.inputs import validate_input
from thoughtgraph.features.thoughts.service import ThoughtInput, ThoughtService
from thoughtgraph.llm.client import LLMClient, LLMError
from thoughtgraph.ports.clock import Clock
from thoughtgraph.ports.services import Embeddings
from thoughtgraph.settings import Settings

log = structlog.get_logger(__name__)
MAX_TRANSCRIPT_CHARS = 100_000
MAX_EXTRACTED = 50
MAX_ARTIFACTS = 50
ARTIFACT_KINDS = ("commit", "pr", "adr", "file")
OFFLINE_EXTRACTOR = "offline"


class EpisodeService:
    def __init__(
        self,
        repos: Repositories,
        embedder: Embeddings,
        thoughts: ThoughtService,
        llm: LLMClient | None,
        settings: Settings,
        clock: Clock,
        events: OpsEvents = NO_OPS_EVENTS,
    ) -> None:
        self._repos = repos
        self._embedder = embedder
        self._events = events
        self._thoughts = thoughts
        self._llm = llm
        self._settings = settings
        self._clock = clock

    async def recent(
        self, namespace: str, limit: int | None = None, *, caller: Principal | None = None
    ) -> list[Episode]:
        check_access(caller, Action.READ, namespace)
        check.require_namespace(namespace)
        limit = check.page_size("first", limit, check.DEFAULT_PAGE_SIZE, check.MAX_PAGE_SIZE)
        viewer = viewer_of(caller)
        return [e for e in await self._repos.episodes.recent(namespace, limit) if e.seen_by(viewer)]

    async def get(
        self, namespace: str, episode_id: str, *, caller: Principal | None = None
    ) -> Episode | None:
        check_access(caller, Action.READ, namespace)
        check.require_namespace(namespace)
        eid = check.require_identifier("id", episode_id)
        found = (await self._repos.episodes.get_many(namespace, [eid])).get(eid)
        return found if found is not None and found.seen_by(viewer_of(caller)) else None

    async def ingest(
        self,
        namespace: str,
        transcript: str | None,
        *,
        title: str | None,
        artifacts: Sequence[Artifact],
        actor: Actor,
        turns: Sequence[Turn] | None = None,
        session_id: str | None = None,
        scope: Scope | None = None,
        user_id: str | None = None,
        caller: Principal | None = None,
    ) -> Episode:
        """A transcript (extracted), or ``turns`` (one thought each), never both. The
        episode and its thoughts share one scope (the namespace's default unless given)."""
        check_access(caller, Action.WRITE, namespace)
        check.require_namespace(namespace)
        owned = scope_for(caller, self._thoughts.scopes, namespace, scope, user_id)
        if turns is not None:
            if transcript is not None:
                raise MutualExclusionError("give a transcript or turns, not both", field="turns")
            return await self._ingest_turns(
                namespace,
                turns,
                session_id,
                title=title,
                artifacts=artifacts,
                actor=actor,
                owned=owned,
            )
        if session_id is not None:
            raise InvalidInputError("sessionId goes with turns", field="sessionId")
        if transcript is None:
            raise InvalidInputError("give a transcript or turns", field="transcript")
        text = check.require_text("transcript", transcript, MAX_TRANSCRIPT_CHARS)
        title = check.require_name("title", title) if title is not None else None
        checked = _artifacts(artifacts)
        episode_id = _owned_id(stable_id("episode", namespace, text), owned)
        existing = await self.get(namespace, episode_id)
        if existing is not None:
            self._record(namespace, episode_id, OpsStatus.SKIPPED)
            return existing
        usage = UsageMeter(max_calls=self._settings.llm_max_calls_per_run, namespace=namespace)
        extracted, llm_title, summary, line, extractor = await self._extract(text, usage)
        thought_ids = tuple(
            stable_thought_id("thought", episode_id, str(i)) for i in range(len(extracted))
        )
        episode = Episode(
            id=episode_id,
            namespace=namespace,
            title=title or llm_title or line[:80],
            narrative=text,
            summary=summary,
            compressed=line,
            index_label=_index_label(title or llm_title or line),
            artifacts=checked,
            thought_ids=thought_ids,
            created_at_ms=self._clock.now_ms(),
            extractor=extractor,
            scope=owned[0],
            owner_id=owned[1],
        )
        embedding = await self._embedder.async_embed_query(summary)
        await self._repos.episodes.create(episode, embedding, actor=actor)
        self._record(namespace, episode_id, OpsStatus.OK)
        for thought_id, item in zip(thought_ids, extracted, strict=True):
            await self._thoughts.write_original(
                ThoughtInput(
                    content=item.content,
                    agent_id=actor.id,
                    agent_name=actor.name,
                    namespace=namespace,
                    key_id=actor.key_id,
                    kind=ThoughtKind(item.kind),
                    salience=item.salience,
                    episode_id=episode_id,
                    scope=owned[0],
                    owner_id=owned[1],
                ),
                thought_id=thought_id,
            )
        return (await self.get(namespace, episode_id)) or episode

    async def _ingest_turns(
        self,
        namespace: str,
        turns: Sequence[Turn],
        session_id: str | None,
        *,
        title: str | None,
        artifacts: Sequence[Artifact],
        actor: Actor,
        owned: tuple[Scope, str | None],
    ) -> Episode:
        """Every turn checked first: one bad turn writes nothing."""
        said = check_turns(turns)
        session = check.optional_identifier("sessionId", session_id)
        title = check.require_name("title", title) if title is not None else None
        checked = _artifacts(artifacts)
        episode_id = _owned_id(episode_id_of_turns(namespace, said, session), owned)
        existing = await self.get(namespace, episode_id)
        if existing is not None:
            self._record(namespace, episode_id, OpsStatus.SKIPPED)
            return existing
        now = self._clock.now_ms()
        inputs = [
            replace(
                _turn_input(turn, namespace, session or episode_id, now, episode_id, actor),
                scope=owned[0],
                owner_id=owned[1],
            )
            for turn in said
        ]
        for item in inputs:  # the thoughts' own checks, before the episode is written
            validate_input(item, None)
        text = narrative(said)
        usage = UsageMeter(max_calls=self._settings.llm_max_calls_per_run, namespace=namespace)
        summary, line, extractor = await self._compress(text, usage)
        thought_ids = tuple(
            stable_thought_id("thought", episode_id, str(i)) for i in range(len(said))
        )
        episode = Episode(
            id=episode_id,
            namespace=namespace,
            title=title or line[:80],
            narrative=text,
            summary=summary,
            compressed=line,
            index_label=_index_label(title or line),
            artifacts=checked,
            thought_ids=thought_ids,
            created_at_ms=now,
            extractor=extractor,
            scope=owned[0],
            owner_id=owned[1],
        )
        embedding = await self._embedder.async_embed_query(summary)
        await self._repos.episodes.create(episode, embedding, actor=actor)
        self._record(namespace, episode_id, OpsStatus.OK)
        for thought_id, item in zip(thought_ids, inputs, strict=True):
            await self._thoughts.write_original(item, thought_id=thought_id)
        return (await self.get(namespace, episode_id)) or episode

    async def _compress(self, text: str, usage: UsageMeter) -> tuple[str, str, str]:
        """(summary, one line, by whom) of a conversation: the compression prompt with an
        LLM, its offline stand-in without one (or when the LLM fails)."""
        from thoughtgraph.domain.language.extractive import compress

        if self._llm is not None:
            try:
                from thoughtgraph.llm.prompts import compression

                levels = await self._llm.complete(compression.PROMPT, usage, text)
                return levels.summary, levels.line, self._llm.model
            except LLMError as exc:
                log.warning("episode.llm_failed", error=str(exc))
        summary, line = compress(text)
        return summary, line, OFFLINE_EXTRACTOR

    def _record(self, namespace: str, episode_id: str, status: OpsStatus) -> None:
        # The extracted thoughts record their own (episodic) events: write_original.
        self._events.record(
            namespace, "create", status, memory_id=episode_id, node=OpsNode.EPISODIC
        )

    async def _extract(
        self, transcript: str, usage: UsageMeter
    ) -> tuple[list[ExtractedThought], str, str, str, str]:
        """(thoughts, title, summary, one line, extractor)."""
        from thoughtgraph.domain.language.extractive import compress, extract_offline

        if self._llm is not None:
            try:
                from thoughtgraph.llm.prompts import compression, episode_extraction

                answer = await self._llm.complete(
                    episode_extraction.PROMPT, usage, transcript, MAX_EXTRACTED
                )
                levels = await self._llm.complete(compression.PROMPT, usage, transcript)
                return (
                    answer.thoughts[:MAX_EXTRACTED],
                    answer.title,
                    answer.summary or levels.summary,
                    levels.line,
                    self._llm.model,
                )
            except LLMError as exc:
                log.warning("episode.llm_failed", error=str(exc))
        summary, line = compress(transcript)
        return extract_offline(transcript)[:MAX_EXTRACTED], "", summary, line, OFFLINE_EXTRACTOR


def _owned_id(episode_id: str, owned: tuple[Scope, str | None]) -> str:
    """A private episode's id names its owner too: two users sending the same
    conversation each get their own (the shared id is unchanged)."""
    scope, owner = owned
    return stable_id(episode_id, "private", owner or "") if scope is Scope.PRIVATE else episode_id


def _turn_input(
    turn: CheckedTurn,
    namespace: str,
    session_id: str,
    now_ms: int,
    episode_id: str,
    actor: Actor,
) -> ThoughtInput:
    """A turn as a thought: by its speaker, in the session, valid from when it was said."""
    return ThoughtInput(
        content=turn.content,
        agent_id=turn.agent_id,
        agent_name=turn.speaker,
        namespace=namespace,
        session_id=session_id,
        key_id=actor.key_id,
        valid_from_ms=turn.at_ms if turn.at_ms is not None else now_ms,
        episode_id=episode_id,
    )


def _artifacts(artifacts: Sequence[Artifact]) -> tuple[Artifact, ...]:
    if len(artifacts) > MAX_ARTIFACTS:
        raise InvalidInputError(f"at most {MAX_ARTIFACTS} artifacts", field="artifacts")
    for artifact in artifacts:
        if artifact.kind not in ARTIFACT_KINDS:
            raise InvalidInputError(
                f"artifact kind must be one of {', '.join(ARTIFACT_KINDS)}", field="artifacts"
            )
        check.require_text("artifacts.ref", artifact.ref, check.MAX_NAME_CHARS)
    return tuple(artifacts)


def _index_label(text: str) -> str:
    """A short label an index can list episodes by: the first words, lower-case."""
    words = [w.strip(".,:;!?\"'()").lower() for w in text.split()]
    return "-".join(w for w in words if w)[:60] or "episode"
