"""Topics (seed 004): a thought joins the topic whose embedding is closest above the
assignment similarity, or starts a new one named from it; a topic is summarised lazily,
once enough unsummarised thoughts have gathered."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from app.clock import Clock
from app.domain import validation as check
from app.domain.changes import Actor
from app.domain.judgement import UsageMeter
from app.domain.knowledge import Topic, stable_id
from app.domain.models import Thought
from app.services.summaries import TopicSummariser
from app.settings import Settings
from app.store.cypher_store import CypherGraphStore
from app.store.repositories.topics import TopicVector

MAX_TOPIC_MEMBERS = 100  # a summary reads at most this many of a topic's newest thoughts


@dataclass
class AssignOutcome:
    assigned: int = 0
    created: int = 0
    # Unsummarised thoughts per topic that this pass added (dry runs cannot read them back).
    added: dict[str, int] = field(default_factory=dict)


class _Centroids:
    """The namespace's topic embeddings as one normalised matrix, grown as topics form."""

    def __init__(self, topics: Sequence[TopicVector]) -> None:
        self.ids = [t.id for t in topics]
        vectors = [np.asarray(t.embedding, dtype=np.float32) for t in topics]
        self.matrix = np.vstack([v / (np.linalg.norm(v) or 1.0) for v in vectors]) if vectors else None

    def nearest(self, embedding: Sequence[float]) -> tuple[str | None, float]:
        if self.matrix is None:
            return None, -1.0
        v = np.asarray(embedding, dtype=np.float32)
        scores = self.matrix @ (v / (np.linalg.norm(v) or 1.0))
        best = int(np.argmax(scores))
        return self.ids[best], float(scores[best])

    def add(self, topic_id: str, embedding: Sequence[float]) -> None:
        v = np.asarray(embedding, dtype=np.float32)
        row = (v / (np.linalg.norm(v) or 1.0))[None, :]
        self.matrix = row if self.matrix is None else np.vstack([self.matrix, row])
        self.ids.append(topic_id)


class TopicService:
    def __init__(
        self,
        store: CypherGraphStore,
        summariser: TopicSummariser,
        settings: Settings,
        clock: Clock,
    ) -> None:
        self._store = store
        self._summariser = summariser
        self._settings = settings
        self._clock = clock

    # --- reads -------------------------------------------------------------------------
    async def recent(self, namespace: str, limit: int) -> list[Topic]:
        check.require_namespace(namespace)
        check.require_int_range("first", limit, 1, check.MAX_PAGE_SIZE)
        return await self._store.topics.recent(namespace, limit)

    async def get(self, namespace: str, topic_id: str) -> Topic | None:
        check.require_namespace(namespace)
        tid = check.require_identifier("id", topic_id)
        return (await self._store.topics.get_many(namespace, [tid])).get(tid)

    async def members(self, namespace: str, topic_id: str, limit: int) -> list[Thought]:
        check.require_int_range("first", limit, 1, check.MAX_PAGE_SIZE)
        rows = await self._store.topics.members(namespace, topic_id, limit)
        return [thought for thought, _ in rows]

    # --- maintenance -------------------------------------------------------------------
    async def assign(
        self,
        namespace: str,
        thoughts: Sequence[tuple[Thought, Sequence[float]]],
        *,
        dry_run: bool = False,
    ) -> AssignOutcome:
        """Thoughts in no topic yet join the nearest topic above the threshold, or found a
        new one (named from the thought, its embedding as the topic's first centroid)."""
        from app.knowledge.extractive import topic_name

        outcome = AssignOutcome()
        centroids = _Centroids(await self._store.topics.vectors(namespace))
        joining: dict[str, list[str]] = defaultdict(list)
        now = self._clock.now_ms()
        actor = Actor.maintenance("topics")
        for thought, embedding in thoughts:
            if thought.topic_id is not None:
                continue
            topic_id, similarity = centroids.nearest(embedding)
            if topic_id is None or similarity <= self._settings.topic_assign_similarity:
                name = topic_name(thought.content)
                topic_id = stable_id("topic", namespace, name.lower())
                if topic_id not in centroids.ids:
                    centroids.add(topic_id, embedding)
                    outcome.created += 1
                    if not dry_run:
                        await self._store.topics.create(
                            namespace,
                            topic_id,
                            name,
                            embedding,
                            actor=actor,
                            at_ms=now,
                            first_thought_id=thought.id,
                        )
            joining[topic_id].append(thought.id)
        for topic_id, ids in joining.items():
            joined = len(ids)
            if not dry_run:
                joined = await self._store.topics.assign(
                    namespace, topic_id, ids, actor=actor, at_ms=now
                )
            outcome.assigned += joined
            outcome.added[topic_id] = joined
        return outcome

    async def summarise_due(
        self,
        namespace: str,
        usage: UsageMeter,
        *,
        dry_run: bool = False,
        pending: dict[str, int] | None = None,
    ) -> tuple[int, list[tuple[str, str]]]:
        """Summarise topics with at least topic_summary_min_unsummarised new thoughts.
        Returns how many were summarised and the (newer, older) pairs the summariser saw
        superseded. ``pending``: what a dry run would have added."""
        minimum = self._settings.topic_summary_min_unsummarised
        if dry_run:
            due = await self._store.topics.due_for_summary(namespace, 1, 10_000)
            counts = {t.id: t.unsummarised_count for t in due}
            for topic_id, added in (pending or {}).items():
                counts[topic_id] = counts.get(topic_id, 0) + added
            return sum(1 for n in counts.values() if n >= minimum), []
        summarised = 0
        superseded: list[tuple[str, str]] = []
        for topic in await self._store.topics.due_for_summary(namespace, minimum, 1_000):
            members = await self._store.topics.members(
                namespace, topic.id, MAX_TOPIC_MEMBERS, with_embeddings=True
            )
            if not members:
                continue
            result = await self._summariser.summarise(topic.name, members, usage)
            await self._store.topics.summarise(
                namespace,
                topic.id,
                result.summary,
                summariser=result.summariser,
                actor=Actor.maintenance(result.summariser),
                at_ms=self._clock.now_ms(),
            )
            summarised += 1
            superseded += result.superseded
        return summarised, superseded
