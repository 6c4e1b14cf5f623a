"""Collecting candidates for each tier from the store and the search service, concurrently.

Search goes through ``ThoughtSearch``, a protocol the search service satisfies.

Agent allowlists: ``visible`` is applied to every thought before it becomes a candidate
(a contradiction needs both its thoughts visible); ``visibility(allowed_categories)``
builds it from the categories the context service says the reading agent may read.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from thoughtgraph.domain.changes import ChangeKind, SubjectKind
from thoughtgraph.domain.context.items import (
    contradiction_item,
    error_item,
    similarity_confidence,
    thought_item,
    topic_index_item,
    topic_summary_item,
)
from thoughtgraph.domain.context.model import Candidate, Signals, Tier
from thoughtgraph.domain.context.signals import (
    errors_of,
    file_terms,
    mentions,
    overlap,
    signal_words,
    task_query,
    words_of,
)
from thoughtgraph.domain.knowledge import ContradictionStatus, Topic
from thoughtgraph.domain.models import Thought, ThoughtFilter, ThoughtKind, TimeView
from thoughtgraph.domain.procedures import PROCEDURAL_KINDS, procedure_item
from thoughtgraph.domain.scopes import Viewer
from thoughtgraph.features.repositories import Repositories

Visible = Callable[[Thought], bool]

QUERY_HITS = 15  # the query's hits at the smallest budgets; more as the budget grows
# A hit at the relevant tier's summary level is ~35 tokens, and tier 2 may take most of
# the budget (what the other tiers leave comes back to it).
TOKENS_PER_QUERY_HIT = 30
MAX_QUERY_HITS = 200
TASK_HITS = 8
ERROR_HITS = 3
ERROR_MIN_SIMILARITY = 0.35
DECISION_MIN_SIMILARITY = 0.45
LISTED = 50  # newest thoughts of a kind considered
CONTRADICTIONS = 20
TOPICS = 50
MAX_COLLABORATORS = 5
# Statements and searches in flight at once: the parts run concurrently, but a burst of
# twenty statements from one request would crowd out everyone else's on a small machine.
MAX_IN_FLIGHT = 4
RECENT = 20
# With a query, the newest thoughts rank below the query's hits (a share of their score):
# they fill what the query's own hits leave rather than push its deeper hits out.
RECENT_WITH_QUERY = 0.25
RECENT_EVENTS = 100  # the change log's last events the recent thoughts are read from
RECENT_FIRST_PAGE = 2 * RECENT  # thoughts read first; the rest only if too few were fresh
WRITTEN = frozenset({ChangeKind.CREATED, ChangeKind.REFINED, ChangeKind.CONSOLIDATED})
PLACED_KINDS = frozenset({ThoughtKind.DECISION, ThoughtKind.PREFERENCE, ThoughtKind.TASK})
PLACED_KINDS |= PROCEDURAL_KINDS


class SearchHitLike(Protocol):
    @property
    def thought(self) -> Thought: ...
    @property
    def similarity(self) -> float: ...
    @property
    def score(self) -> float: ...
    @property
    def refined_by(self) -> str | None: ...
    @property
    def superseded_by(self) -> str | None: ...


class ThoughtSearch(Protocol):
    async def search_for_context(
        self, namespace: str, query: str, *, k: int = 10, view: TimeView | None = None
    ) -> Sequence[SearchHitLike]: ...


def query_hits_for(budget: int) -> int:
    """How many of the query's hits to consider for a context of ``budget`` tokens: the
    packer drops what does not fit, but it cannot add what was never read."""
    return max(QUERY_HITS, min(MAX_QUERY_HITS, budget // TOKENS_PER_QUERY_HIT))


def visibility(allowed_categories: Collection[str] | None, viewer: Viewer) -> Visible:
    """Thoughts the viewer sees (app/domain/scopes.py), of every category when None;
    else only those in one of the categories."""
    if allowed_categories is None:
        return lambda thought: thought.seen_by(viewer)
    allowed = frozenset(allowed_categories)
    return lambda thought: thought.category in allowed and thought.seen_by(viewer)


@dataclass(frozen=True)
class Gathering:
    repos: Repositories
    search: ThoughtSearch
    namespace: str
    signals: Signals
    current: TimeView  # current knowledge only: nothing superseded passed off as current
    revision: int  # the namespace's revision when the assembly started
    visible: Visible
    query_hits: int = QUERY_HITS  # see query_hits_for
    # Settings.context_contradiction_min_confidence: an open contradiction the judge was
    # less sure of waits in the review queue instead of heading the context.
    contradiction_min_confidence: float = 0.0
    # Procedures, workflows and code patterns: only for a reader that asks for them
    # (domain/procedures.wants_procedures), as tier-3 hints; never elsewhere.
    procedural: bool = False
    _slots: asyncio.Semaphore = field(
        default_factory=lambda: asyncio.Semaphore(MAX_IN_FLIGHT), init=False, repr=False
    )

    async def candidates(self) -> list[Candidate]:
        parts = await asyncio.gather(
            self._contradictions(),
            self._errors(),
            self._decisions(),
            self._matches(),
            self._preferences(),
            self._tasks(),
            self._recent(),
            self._background(),
            self._topics(),
        )
        return [candidate for part in parts for candidate in part]

    # --- tier 1 ------------------------------------------------------------------------
    async def _contradictions(self) -> list[Candidate]:
        found = await self.repos.contradictions.by_status(
            self.namespace, ContradictionStatus.OPEN, CONTRADICTIONS
        )
        found = [c for c in found if c.confidence >= self.contradiction_min_confidence]
        ids = [tid for c in found for tid in (c.thought_a_id, c.thought_b_id)]
        thoughts = await self.repos.thoughts.get_many(self.namespace, ids)
        items = []
        for contradiction in found:
            older = thoughts.get(contradiction.thought_a_id)
            newer = thoughts.get(contradiction.thought_b_id)
            if older and newer and self.visible(older) and self.visible(newer):
                items.append(contradiction_item(contradiction, older, newer))
        return items

    async def _errors(self) -> list[Candidate]:
        errors = errors_of(self.signals)
        if not errors:
            return []
        # Every hit, superseded or refined ones included: an old error's fix is what
        # retired it.
        view = self.current.model_copy(update={"current_only": False})
        found = await asyncio.gather(*(self._search(e, ERROR_HITS, view) for e in errors))
        hits = [
            hit
            for hits in found
            for hit in hits
            if hit.similarity >= ERROR_MIN_SIMILARITY and self.visible(hit.thought)
            if hit.thought.kind not in PROCEDURAL_KINDS
        ]
        fix_ids = [fid for hit in hits for fid in (hit.refined_by, hit.superseded_by) if fid]
        fixes = await self.repos.thoughts.get_many(self.namespace, fix_ids)
        items = []
        for hit in hits:
            fix = fixes.get(hit.refined_by or "") or fixes.get(hit.superseded_by or "")
            if fix is not None and (not fix.is_current or not self.visible(fix)):
                fix = None
            if hit.thought.is_current or fix is not None:
                items.append(error_item(hit.thought, fix, hit.similarity))
        return items

    async def _decisions(self) -> list[Candidate]:
        """Decisions naming the file or the task go to tier 1, those sharing the signals'
        words to tier 2 (related decisions), the rest to tier 3 (conventions)."""
        decisions = await self._listed(ThoughtKind.DECISION)
        terms = file_terms(self.signals.current_file)
        words = signal_words(self.signals)
        items = []
        for decision in decisions:
            shared = overlap(decision, words)
            if terms and mentions(decision, terms):
                items.append(thought_item(decision, Tier.CRITICAL, "decision", 1.0, confidence=0.9))
            elif shared:
                score = min(1.0, 0.3 + 0.2 * shared)
                items.append(
                    thought_item(decision, Tier.RELEVANT, "related_decision", score, confidence=0.6)
                )
            else:
                score = 0.2 + 0.1 * decision.importance / 5
                items.append(
                    thought_item(decision, Tier.BACKGROUND, "convention", score, confidence=0.3)
                )
        return items

    # --- tier 2 ------------------------------------------------------------------------
    async def _matches(self) -> list[Candidate]:
        """Search hits for the query and for the file and branch; a decision found by the
        file or branch with enough similarity is a decision for the task (tier 1)."""
        task = task_query(self.signals)
        searches = [(self.signals.query, "query", self.query_hits), (task, "task", TASK_HITS)]
        found = await asyncio.gather(
            *(self._search(text, k, self.current) for text, _, k in searches if text)
        )
        sources = [source for text, source, _ in searches if text]
        items = []
        for source, hits in zip(sources, found, strict=True):
            weight = 1.0 if source == "query" else 0.9
            for hit in hits:
                if not self.visible(hit.thought) or hit.thought.kind in PROCEDURAL_KINDS:
                    continue
                confidence = similarity_confidence(hit.similarity)
                critical = (
                    source == "task"
                    and hit.thought.kind is ThoughtKind.DECISION
                    and hit.similarity >= DECISION_MIN_SIMILARITY
                )
                tier = Tier.CRITICAL if critical else Tier.RELEVANT
                score = (0.5 + hit.score / 2) if critical else hit.score * weight
                items.append(thought_item(hit.thought, tier, source, score, confidence=confidence))
        return items

    async def _preferences(self) -> list[Candidate]:
        """Collaborators' preferences."""
        collaborators = list(dict.fromkeys(self.signals.collaborators))[:MAX_COLLABORATORS]
        lists = await asyncio.gather(
            *(self._listed(ThoughtKind.PREFERENCE, agent_id=who) for who in collaborators)
        )
        items = []
        for preferences in lists:
            for rank, pref in enumerate(preferences):
                label = f"{pref.agent_name} prefers"
                score = 0.6 - rank * 0.01
                items.append(
                    thought_item(
                        pref, Tier.RELEVANT, "preference", score, label=label, confidence=0.7
                    )
                )
        return items

    async def _tasks(self) -> list[Candidate]:
        """The agent's own open tasks: what "the task" is when no file says it."""
        if not self.signals.agent:
            return []
        tasks = await self._listed(ThoughtKind.TASK, agent_id=self.signals.agent)
        return [
            thought_item(task, Tier.RELEVANT, "task", 0.55 - rank * 0.01, confidence=0.6)
            for rank, task in enumerate(tasks)
        ]

    async def _recent(self) -> list[Candidate]:
        """The newest current thoughts, below every signal match: what a session start
        without signals still needs. Read off the change log's last events, whose
        revision bounds the read, rather than by sorting every thought of the namespace
        by time; the thoughts themselves newest first, a page at a time, until RECENT are
        found (most namespaces need only the first page)."""
        async with self._slots:
            events = await self.repos.changes.since(
                self.namespace, max(0, self.revision - RECENT_EVENTS), RECENT_EVENTS
            )
            ids = list(
                dict.fromkeys(
                    e.subject_id
                    for e in reversed(events)
                    if e.kind in WRITTEN and e.subject_kind is SubjectKind.THOUGHT
                )
            )
            fresh: list[Thought] = []
            for start, end in ((0, RECENT_FIRST_PAGE), (RECENT_FIRST_PAGE, len(ids))):
                if len(fresh) >= RECENT or start >= len(ids):
                    break
                fresh += await self._fresh(ids[start:end])
        items = []
        share = RECENT_WITH_QUERY if self.signals.query else 1.0
        for rank, thought in enumerate(fresh[:RECENT]):
            score = share * (0.1 + 0.1 * thought.salience + 0.02 * thought.importance)
            score -= rank * 0.001
            items.append(thought_item(thought, Tier.RELEVANT, "recent", score, confidence=0.3))
        return items

    async def _fresh(self, ids: list[str]) -> list[Thought]:
        """Of ``ids`` (newest first), the current thoughts no newer one refines, in order."""
        found = await self.repos.thoughts.get_many(self.namespace, ids)
        # Decisions, preferences, procedures, tasks and conventions have places of their
        # own; refined thoughts are not current (as in search).
        recent = [
            thought
            for tid in ids
            if (thought := found.get(tid)) is not None and self._current(thought)
            if thought.kind not in PLACED_KINDS and "convention" not in thought.tags
        ]
        refiners = await self.repos.lineage.refiners(
            self.namespace, [t.id for t in recent], self.current.viewer
        )
        return [thought for thought in recent if not refiners.get(thought.id)]

    def _current(self, thought: Thought) -> bool:
        expired = thought.valid_to_ms is not None and thought.valid_to_ms <= self.current.now_ms
        return thought.is_current and not expired and self.visible(thought)

    # --- tier 3 ------------------------------------------------------------------------
    async def _background(self) -> list[Candidate]:
        """Conventions (preferences and thoughts tagged "convention") and, for a reader
        that asks for them, procedural hints (those matching the signals first)."""
        preferences, tagged = await asyncio.gather(
            self._listed(ThoughtKind.PREFERENCE),
            self._listed(None, tag="convention"),
        )
        words = signal_words(self.signals)
        items = []
        for thought in [*tagged, *preferences]:
            if thought.kind in PROCEDURAL_KINDS:
                continue  # a procedure tagged "convention" is a procedure all the same
            score = 0.3 + 0.1 * thought.importance / 5 + 0.05 * overlap(thought, words)
            items.append(
                thought_item(thought, Tier.BACKGROUND, "convention", score, confidence=0.35)
            )
        return items + await self._procedures(words)

    async def _procedures(self, words: set[str]) -> list[Candidate]:
        """Workflows, code patterns and procedures as one-line hints with the id that
        expands them; none unless the reader asked for them."""
        if not self.procedural:
            return []
        kinds = sorted(PROCEDURAL_KINDS)
        lists = await asyncio.gather(*(self._listed(kind) for kind in kinds))
        return [
            procedure_item(thought, 0.4 + 0.1 * overlap(thought, words), confidence=0.4)
            for listed in lists
            for thought in listed
        ]

    async def _topics(self) -> list[Candidate]:
        """Tier 3: summaries of the topics the signals touch; tier 4: every topic."""
        topics = await self.repos.topics.recent(self.namespace, TOPICS)
        words = signal_words(self.signals)
        items: list[Candidate] = []
        largest = max((t.thought_count for t in topics), default=1) or 1
        for topic in topics:
            summary = topic_summary_item(topic, 0.35 + 0.1 * _topic_overlap(topic, words))
            if summary is not None:
                items.append(summary)
            items.append(topic_index_item(topic, topic.thought_count / largest))
        return items

    # --- helpers -----------------------------------------------------------------------
    async def _search(self, text: str, k: int, view: TimeView) -> Sequence[SearchHitLike]:
        async with self._slots:
            return await self.search.search_for_context(self.namespace, text, k=k, view=view)

    async def _listed(
        self, kind: ThoughtKind | None, *, agent_id: str | None = None, tag: str | None = None
    ) -> list[Thought]:
        async with self._slots:
            page = await self.repos.thoughts.page(
                self.namespace,
                ThoughtFilter(kind=kind, agent_id=agent_id, tag=tag),
                None,
                LISTED,
                self.current,
            )
            shown = [thought for thought in page.thoughts if self.visible(thought)]
            # A refined or consolidated thought is not current either (as in search).
            refiners = await self.repos.lineage.refiners(
                self.namespace, [t.id for t in shown], self.current.viewer
            )
        return [thought for thought in shown if not refiners.get(thought.id)]


def _topic_overlap(topic: Topic, words: set[str]) -> int:
    return len(set(words_of(f"{topic.name} {topic.summary or ''}")) & words)
