"""Merging near-duplicates into consolidation thoughts, and undoing a merge.

Two thoughts merge only when they are near-identical (dedupe_similarity) and say the
same thing (the content words of one contain the other's), both current, not lineage of
one another, and neither is party to a contradiction: "listens on 8080" and "listens on
9443" can be 0.95 similar, and merging them would hide the change; "the billing service
listens on 8080" and "the auth service listens on 8080" are both true.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

from thoughtgraph.domain import validation as check
from thoughtgraph.domain.changes import Actor
from thoughtgraph.domain.errors import InvalidStateError, ThoughtNotFoundError
from thoughtgraph.domain.knowledge import pair_fingerprint, stable_thought_id
from thoughtgraph.domain.language.claims import is_claim, same_words
from thoughtgraph.domain.models import ScoredThought, Thought, ThoughtType
from thoughtgraph.domain.rules import connected_groups, inherited_pheromone, near_duplicate_text
from thoughtgraph.domain.scopes import Partition
from thoughtgraph.domain.units import DAY_MS
from thoughtgraph.features.access import (
    Action,
    Principal,
    check_access,
    require_change,
    seen,
    viewer_of,
)
from thoughtgraph.features.consent.gate import FieldChanges
from thoughtgraph.features.repositories import Repositories
from thoughtgraph.ports.clock import Clock
from thoughtgraph.ports.services import Embeddings
from thoughtgraph.settings import Settings

MAX_CLUSTER = 20
MERGE_REASON = "near-duplicates merged by consolidation"


class Merged(NamedTuple):
    thought: Thought
    embedding: list[float]


def merge_id(namespace: str, source_ids: Sequence[str]) -> str:
    """The merged thought's id, from its sources: a retried merge finds what it wrote."""
    return stable_thought_id("merge", namespace, *sorted(source_ids))


def _duplicates(a: str, b: str) -> bool:
    """True duplicates: two claims saying the same thing, or the very same words."""
    if is_claim(a) and is_claim(b):
        return near_duplicate_text(a, b)
    return same_words(a, b)


def _fullest(members: Sequence[Thought]) -> Thought:
    """The fullest wording (the others' words are contained in it), newest on ties."""
    return max(members, key=lambda t: (len(t.content), t.created_at_ms, t.revision))


class MergeService:
    def __init__(
        self,
        repos: Repositories,
        embedder: Embeddings,
        settings: Settings,
        clock: Clock,
        fields: FieldChanges,
    ) -> None:
        self._repos = repos
        self.fields = fields  # a person field changes only by consent: never merged
        self._embedder = embedder
        self._settings = settings
        self._clock = clock
        self._reason_embedding: list[float] | None = None

    async def plan(
        self,
        namespace: str,
        subjects: Sequence[Thought],
        neighbours: dict[str, list[ScoredThought]],
        contested: set[str],
    ) -> list[list[Thought]]:
        """Clusters of near-duplicates to merge. ``contested``: thoughts party to a
        contradiction (found in this run, or open): they wait until it is decided, so a
        merge never carries an outdated value past its supersession."""
        threshold = self._settings.dedupe_similarity
        thoughts: dict[str, Thought] = {t.id: t for t in subjects}
        pairs: dict[str, tuple[str, str]] = {}
        for hits in neighbours.values():
            for hit in hits:
                thoughts[hit.thought.id] = hit.thought
        for tid, hits in neighbours.items():
            for hit in hits:
                other = hit.thought
                if hit.similarity < threshold or other.id == tid:
                    continue
                if tid in contested or other.id in contested:
                    continue
                mine = thoughts.get(tid)
                if mine is None or tid in other.source_ids or other.id in mine.source_ids:
                    continue  # unknown, or lineage of one another
                if not _duplicates(mine.content, other.content):
                    continue
                pairs[pair_fingerprint(namespace, tid, other.id)] = (tid, other.id)
        flagged = set(await self._repos.contradictions.get_many(namespace, list(pairs)))
        clean = [pair for pid, pair in pairs.items() if pid not in flagged]
        missing = {tid for pair in clean for tid in pair} - set(thoughts)
        if missing:
            thoughts.update(await self._repos.thoughts.get_many(namespace, sorted(missing)))
        clusters = []
        for ids in connected_groups(clean):
            members = [
                thoughts[i]
                for i in ids
                if i in thoughts and thoughts[i].is_current and not self.fields.guarded(thoughts[i])
            ]
            if len(members) > 1:
                clusters.append(members[:MAX_CLUSTER])
        return clusters

    async def fullest_embeddings(
        self,
        namespace: str,
        clusters: Sequence[Sequence[Thought]],
        known: Mapping[str, Sequence[float]],
    ) -> dict[str, Sequence[float]]:
        """``known`` and the stored embedding of each cluster's fullest member not in it,
        read in one statement: what ``merge`` needs to embed nothing."""
        found: dict[str, Sequence[float]] = dict(known)
        missing = sorted({_fullest(members).id for members in clusters} - set(known))
        for thought, embedding in await self._repos.thoughts.with_embeddings(namespace, missing):
            found[thought.id] = embedding
        return found

    async def merge(
        self,
        namespace: str,
        members: Sequence[Thought],
        embeddings: Mapping[str, Sequence[float]] | None = None,
        *,
        into: Partition | None = None,
        run_id: str | None = None,
    ) -> Merged | None:
        """The merged thought and its embedding (None when a member changed meanwhile).
        ``embeddings``:
        stored embeddings of thoughts at hand (a run's page); the merged thought says what
        its fullest member says, so it takes that member's embedding when known, and the
        model embeds the text otherwise."""
        if into is None and len({t.partition for t in members}) > 1:
            return None  # knowledge of one scope never merges into another's
        if any(self.fields.guarded(t) for t in members):
            return None  # a person field changes only by consent
        # ``into``: the owners agreed to merge across scopes (a merge proposal).
        newest = max(members, key=lambda t: (t.created_at_ms, t.revision, t.id))
        fullest = _fullest(members)
        source_ids = tuple(sorted(t.id for t in members))
        actor = Actor.maintenance("consolidation")
        merged = Thought(
            id=merge_id(namespace, source_ids),
            namespace=namespace,
            type=ThoughtType.CONSOLIDATION,
            content=fullest.content,
            agent_id=actor.id,
            agent_name=actor.name,
            tags=tuple(sorted({tag for t in members for tag in t.tags})),
            pheromone_weight=inherited_pheromone(
                ThoughtType.CONSOLIDATION, [t.pheromone_weight for t in members]
            ),
            created_at_ms=self._clock.now_ms(),
            source_ids=source_ids,
            kind=newest.kind,
            salience=max(t.salience for t in members),
            importance=max(t.importance for t in members),
            pinned=any(t.pinned for t in members),
            scope=into[0] if into else newest.scope,
            owner_id=into[1] if into else newest.owner_id,
        )
        known = (embeddings or {}).get(fullest.id)
        embedding = (
            list(known)
            if known is not None
            else await self._embedder.async_embed_query(fullest.content)
        )
        if self._reason_embedding is None:
            self._reason_embedding = await self._embedder.async_embed_query(MERGE_REASON)
        revision = await self._repos.merges.merge(
            namespace,
            merged,
            embedding,
            reason=MERGE_REASON,
            reason_embedding=self._reason_embedding,
            actor=actor,
            run_id=run_id,
        )
        return Merged(merged, embedding) if revision is not None else None

    async def undo(
        self, namespace: str, merged_id: str, actor: Actor, *, caller: Principal | None = None
    ) -> list[Thought]:
        """Restore the sources of a merge and retire the merged thought; the sources."""
        check_access(caller, Action.WRITE, namespace)
        check.require_namespace(namespace)
        mid = check.require_thought_id("thoughtId", merged_id)
        found = seen(await self._repos.thoughts.get_many(namespace, [mid]), viewer_of(caller))
        if mid not in found:
            raise ThoughtNotFoundError([mid])
        require_change([found[mid]], caller)
        now = self._clock.now_ms()
        restored = await self._repos.merges.unmerge(
            namespace,
            mid,
            purge_at_ms=now + self._settings.purge_after_days * DAY_MS,
            actor=actor,
            at_ms=now,
        )
        if restored is None:
            raise InvalidStateError(
                f"{mid} is not an active merge made by consolidation", field="thoughtId"
            )
        thoughts = await self._repos.thoughts.get_many(namespace, restored)
        return [thoughts[i] for i in restored if i in thoughts]
