"""Topics: a thought joins the topic whose embedding is closest above the
assignment similarity, or starts a new one named from it; a topic is summarised lazily,
once enough unsummarised thoughts have gathered."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from thoughtgraph.domain import validation as check
from thoughtgraph.domain.changes import Actor
from thoughtgraph.domain.judgement import UsageMeter
from thoughtgraph.domain.knowledge import Topic, stable_id
from thoughtgraph.domain.language.keyphrases import UNTITLED, topic_name
from thoughtgraph.domain.models import Thought
from thoughtgraph.domain.scopes import Scope
from thoughtgraph.features.access import Action, Principal, check_access, viewer_of
from thoughtgraph.features.repositories import Repositories
from thoughtgraph.features.topics.repository import TopicVector
from thoughtgraph.features.topics.summaries import TopicSummariser
from thoughtgraph.ports.clock import Clock
from thoughtgraph.settings import Settings

MAX_TOPIC_MEMBERS = 100  # a summary reads at most this many of a topic's newest thoughts
SUMMARY_BATCH = 50  # topics whose members are read in one statement


class KnownVectors(Protocol):
    def get(self, thought_id: str) -> Sequence[float] | None: ...


@dataclass
class AssignOutcome:
    assigned: int = 0
    created: int = 0
    # Unsummarised thoughts per topic that this pass added (dry runs cannot read them back).
    added: dict[str, int] = field(default_factory=dict)


def join_threshold(size: np.ndarray, settled: float) -> np.ndarray:
    """How similar a thought must be to the centroid of a topic of ``size`` thoughts.

    ``settled`` (topic_assign_similarity, 0.7) is the bar for an established topic. A
    centroid of few thoughts is less similar to a new member than the centroid of many:
    with pairwise similarity r inside a topic, a member's cosine to the centroid of n
    others is sqrt(n) r / sqrt(1 + (n - 1) r), which tends to sqrt(r). Asking the same
    r of every topic (r = settled**2) gives the bar for each size, so a second thought
    can join a topic of one as readily as the tenth joins a topic of nine.
    """
    r = settled * settled
    n = np.maximum(size, 1)
    return np.asarray(np.sqrt(n) * r / np.sqrt(1 + (n - 1) * r))


class KnownTopics:
    """The namespace's topics as ``topic.all`` reads them (centroid and size), kept for a
    whole consolidation run: assignment records here each topic as its write reports it
    stored (not as it meant to store it: FalkorDB drops a SET of a vector over another,
    FalkorDB issue #2099), so a page starts from what re-reading the store would give,
    without re-reading it. Stale (read again) when a create finds the topic exists."""

    def __init__(self, topics: Sequence[TopicVector]) -> None:
        self._rows: dict[str, np.ndarray] = {}
        self._counts: dict[str, int] = {}  # as weighed: at least one
        self.stale = False
        self.reset(topics)

    def reset(self, topics: Sequence[TopicVector]) -> None:
        self._rows.clear()
        self._counts.clear()
        self.stale = False
        for topic in topics:
            self.set(topic.id, topic.embedding, topic.count)

    def set(self, topic_id: str, embedding: Sequence[float], count: int) -> None:
        """A topic as stored now: its centroid and thought count."""
        size = max(1, count)  # a topic nobody joined yet weighs as one thought
        self._rows[topic_id] = (_unit(embedding) * size).astype(np.float32)
        self._counts[topic_id] = size

    def centroids(self, settled: float) -> _Centroids:
        return _Centroids(list(self._rows), list(self._rows.values()), self._counts, settled)


class _Centroids:
    """The namespace's topics as running sums of member embeddings (unit vectors), so a
    topic's embedding is the mean direction of its thoughts and follows them as they join.
    Rows of one matrix: a thought is compared with every topic in one product."""

    def __init__(
        self,
        ids: list[str],
        rows: list[np.ndarray],
        counts: dict[str, int],
        settled: float,
    ) -> None:
        self._settled = settled
        self.ids = ids
        self._index = {topic_id: i for i, topic_id in enumerate(ids)}
        self._sums = np.vstack(rows) if rows else np.zeros((0, 0), dtype=np.float32)
        self._counts = np.array([counts[t] for t in ids], dtype=np.int64)

    def _append(self, topic_id: str, total: np.ndarray, count: int) -> None:
        row = total.astype(np.float32)[None, :]
        self._sums = row if self._sums.size == 0 else np.vstack([self._sums, row])
        self._counts = np.append(self._counts, count)
        self._index[topic_id] = len(self.ids)
        self.ids.append(topic_id)

    def nearest(self, embedding: Sequence[float]) -> str | None:
        """The topic the thought clears the bar of by the widest margin, if any."""
        if not self.ids:
            return None
        norms = np.linalg.norm(self._sums, axis=1)
        norms[norms == 0] = 1.0
        scores = (self._sums @ _unit(embedding)) / norms
        margins = scores - join_threshold(self._counts, self._settled)
        margins[self._counts <= 0] = -np.inf  # emptied: no topic to join
        best = int(np.argmax(margins))
        return self.ids[best] if margins[best] > 0 else None

    def add(self, topic_id: str, embedding: Sequence[float]) -> None:
        if topic_id not in self._index:
            self._append(topic_id, np.zeros(len(embedding), dtype=np.float32), 0)
        i = self._index[topic_id]
        self._sums[i] += _unit(embedding)
        self._counts[i] += 1

    def remove(self, topic_id: str, embedding: Sequence[float]) -> None:
        """Take a thought out again (its topic then weighs nothing in ``nearest``)."""
        i = self._index[topic_id]
        self._sums[i] -= _unit(embedding)
        self._counts[i] -= 1

    def centroid(self, topic_id: str) -> list[float]:
        return [float(x) for x in _unit(self._sums[self._index[topic_id]])]


def _name_from_members(
    names: dict[str, tuple[str, Thought, Sequence[float]]],
    members: dict[str, list[str]],
    pending: Sequence[tuple[Thought, Sequence[float]]],
    centroids: _Centroids,
) -> None:
    """A topic founded in this pass is named from every thought that joined it in the
    pass (the key phrase nearest its centroid), not from its founder alone."""
    by_id = {t.id: (t, e) for t, e in pending}
    for topic_id, (_, founder, embedding) in list(names.items()):
        joined = [by_id[tid] for tid in members.get(topic_id, []) if tid in by_id]
        if len(joined) < 2:
            continue
        texts = [t.content for t, _ in joined]
        better = topic_name(texts, [list(e) for _, e in joined], centroids.centroid(topic_id))
        if better != UNTITLED:
            names[topic_id] = (better, founder, embedding)


def _unit(vector: Sequence[float] | np.ndarray) -> np.ndarray:
    v = np.asarray(vector, dtype=np.float32)
    norm = float(np.linalg.norm(v))
    return v / norm if norm else v


class TopicService:
    def __init__(
        self,
        repos: Repositories,
        summariser: TopicSummariser,
        settings: Settings,
        clock: Clock,
    ) -> None:
        self._repos = repos
        self._summariser = summariser
        self._settings = settings
        self._clock = clock

    # --- reads -------------------------------------------------------------------------
    async def recent(
        self, namespace: str, limit: int | None = None, *, caller: Principal | None = None
    ) -> list[Topic]:
        check_access(caller, Action.READ, namespace)
        check.require_namespace(namespace)
        limit = check.page_size("first", limit, check.DEFAULT_PAGE_SIZE, check.MAX_PAGE_SIZE)
        return await self._repos.topics.recent(namespace, limit)

    async def get(
        self, namespace: str, topic_id: str, *, caller: Principal | None = None
    ) -> Topic | None:
        check_access(caller, Action.READ, namespace)
        check.require_namespace(namespace)
        tid = check.require_identifier("id", topic_id)
        return (await self._repos.topics.get_many(namespace, [tid])).get(tid)

    async def get_many(self, namespace: str, ids: Sequence[str]) -> dict[str, Topic]:
        return await self._repos.topics.get_many(namespace, ids)

    async def members(
        self, namespace: str, topic_id: str, limit: int, *, caller: Principal | None = None
    ) -> list[Thought]:
        check.require_int_range("first", limit, 1, check.MAX_PAGE_SIZE)
        rows = await self._repos.topics.members(namespace, topic_id, limit)
        viewer = viewer_of(caller)
        return [thought for thought, _ in rows if thought.seen_by(viewer)]

    # --- maintenance -------------------------------------------------------------------
    async def known_topics(self, namespace: str) -> KnownTopics:
        """The namespace's topics, to pass to every ``assign`` of one run."""
        return KnownTopics(await self._repos.topics.vectors(namespace))

    async def assign(
        self,
        namespace: str,
        thoughts: Sequence[tuple[Thought, Sequence[float]]],
        *,
        dry_run: bool = False,
        known: KnownTopics | None = None,
    ) -> AssignOutcome:
        """Thoughts in no topic yet join the nearest topic above the threshold, or found a
        new one (named from the thought, its embedding as the topic's first centroid).
        ``known``: the run's topics (``known_topics``), kept current by this call; the
        store's are read when not given."""
        settled = self._settings.topic_assign_similarity
        if known is None:
            known = await self.known_topics(namespace)
        elif known.stale:
            known.reset(await self._repos.topics.vectors(namespace))
        centroids = known.centroids(settled)
        existing = set(centroids.ids)
        # Private thoughts join no topic: everyone in the namespace reads topics' summaries.
        pending = [(t, e) for t, e in thoughts if not t.topic_id and t.scope is not Scope.PRIVATE]
        plan: dict[str, str] = {}  # thought id -> topic id
        names: dict[str, tuple[str, Thought, Sequence[float]]] = {}  # new topic -> founder
        for thought, embedding in pending:
            topic_id = centroids.nearest(embedding)
            if topic_id is None:
                # The id comes from the founder's key phrase, so a retried run finds it.
                name = topic_name([thought.content], [embedding])
                # A thought with no noun phrase ("Hey! How are you?") founds a topic of its
                # own, not one "Untitled" topic for every such thought.
                key = name.lower() if name != UNTITLED else f"untitled:{thought.id}"
                topic_id = stable_id("topic", namespace, key)
                names.setdefault(topic_id, (name, thought, embedding))
            centroids.add(topic_id, embedding)
            plan[thought.id] = topic_id
        # A second look at topics this pass founded and nobody joined: their thought may
        # clear the bar of a topic that formed after it (the order of a batch is arbitrary).
        members: dict[str, list[str]] = defaultdict(list)
        for tid, topic_id in plan.items():
            members[topic_id].append(tid)
        for topic_id, (_, founder, embedding) in list(names.items()):
            if members[topic_id] != [founder.id]:
                continue
            centroids.remove(topic_id, embedding)
            better = centroids.nearest(embedding)
            centroids.add(better or topic_id, embedding)
            if better is not None:
                plan[founder.id] = better
                members[better].append(founder.id)
                del members[topic_id], names[topic_id]
        _name_from_members(names, members, pending, centroids)
        return await self._apply(namespace, plan, names, centroids, existing, dry_run, known)

    async def _apply(
        self,
        namespace: str,
        plan: dict[str, str],
        names: dict[str, tuple[str, Thought, Sequence[float]]],
        centroids: _Centroids,
        existing: set[str],
        dry_run: bool,
        known: KnownTopics,
    ) -> AssignOutcome:
        """Writes the plan (nothing in a dry run) and records in ``known`` what it wrote."""
        outcome = AssignOutcome()
        now = self._clock.now_ms()
        actor = Actor.maintenance("topics")
        joining: dict[str, list[str]] = defaultdict(list)
        for tid, topic_id in plan.items():
            joining[topic_id].append(tid)
        for topic_id, (name, founder, embedding) in names.items():
            if topic_id in existing:
                continue
            outcome.created += 1
            if dry_run:
                continue
            created = await self._repos.topics.create(
                namespace,
                topic_id,
                name,
                embedding,
                actor=actor,
                at_ms=now,
                first_thought_id=founder.id,
            )
            if created:
                known.set(topic_id, embedding, 0)
            else:
                known.stale = True  # another writer made it: read the store next time
        written: dict[str, tuple[int, TopicVector]] = {}
        if not dry_run:
            written = await self._repos.topics.assign_many(
                namespace,
                [(tid, ids, centroids.centroid(tid)) for tid, ids in joining.items()],
                actor=actor,
                at_ms=now,
            )
        for topic_id, ids in joining.items():
            joined = len(ids)
            if not dry_run:
                joined, stored = written.get(topic_id, (0, None))
                if stored is not None:  # nothing changed for a topic that gained none
                    known.set(stored.id, stored.embedding, stored.count)
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
        vectors: KnownVectors | None = None,
    ) -> tuple[int, list[tuple[str, str]]]:
        """Summarise topics with at least topic_summary_min_unsummarised new thoughts.
        Returns how many were summarised and the (newer, older) pairs the summariser saw
        superseded. ``pending``: what a dry run would have added. ``vectors``: embeddings
        at hand (a run's snapshot), so members are read without theirs."""
        minimum = self._settings.topic_summary_min_unsummarised
        if dry_run:
            due = await self._repos.topics.due_for_summary(namespace, 1, 10_000)
            counts = {t.id: t.unsummarised_count for t in due}
            for topic_id, added in (pending or {}).items():
                counts[topic_id] = counts.get(topic_id, 0) + added
            return sum(1 for n in counts.values() if n >= minimum), []
        summarised = 0
        superseded: list[tuple[str, str]] = []
        due = await self._repos.topics.due_for_summary(namespace, minimum, 1_000)
        # Every topic's name, kept current as topics are renamed: a new name is one no
        # other topic has, where the topic's texts offer one.
        names = {t.id: t.name for t in await self._repos.topics.recent(namespace, 10_000)}
        for start in range(0, len(due), SUMMARY_BATCH):
            batch = due[start : start + SUMMARY_BATCH]
            members_of = await self._members_with_vectors(namespace, batch, vectors)
            for topic in batch:
                members = members_of[topic.id]
                if not members:
                    continue
                taken = {name.lower() for tid, name in names.items() if tid != topic.id}
                result = await self._summariser.summarise(topic.name, members, usage, taken)
                names[topic.id] = result.name or topic.name
                await self._repos.topics.summarise(
                    namespace,
                    topic.id,
                    result.summary,
                    name=result.name,
                    summariser=result.summariser,
                    actor=Actor.maintenance(result.summariser),
                    at_ms=self._clock.now_ms(),
                )
                summarised += 1
                superseded += result.superseded
        return summarised, superseded

    async def _members_with_vectors(
        self, namespace: str, topics: Sequence[Topic], vectors: KnownVectors | None
    ) -> dict[str, list[tuple[Thought, Sequence[float]]]]:
        """Each topic's newest members with their embeddings: from ``vectors`` when it
        holds them, else as stored."""
        ids = [t.id for t in topics]
        if vectors is None:
            read = await self._repos.topics.members_many(
                namespace, ids, MAX_TOPIC_MEMBERS, with_embeddings=True
            )
            return {tid: list(members) for tid, members in read.items()}
        read = await self._repos.topics.members_many(
            namespace, ids, MAX_TOPIC_MEMBERS, with_embeddings=False
        )
        missing = sorted(
            {t.id for members in read.values() for t, _ in members if vectors.get(t.id) is None}
        )
        stored = dict(
            (t.id, e) for t, e in await self._repos.thoughts.with_embeddings(namespace, missing)
        )
        found: dict[str, list[tuple[Thought, Sequence[float]]]] = {}
        for tid, members in read.items():
            found[tid] = []
            for thought, _ in members:
                vector = vectors.get(thought.id)
                if vector is None:
                    vector = stored.get(thought.id)
                if vector is not None:  # None: no longer current since it was listed
                    found[tid].append((thought, vector))
        return found
