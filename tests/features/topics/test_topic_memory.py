"""A consolidation run keeps its topics in memory between pages (KnownTopics) instead of
reading them all again for each page: the same assignments as reading them each time,
and what it keeps equals what the store holds afterwards."""

from __future__ import annotations

import numpy as np

from tests.store.test_store_contract import D, make_thought, write
from tests.support import LoopThread, mix, repos, unit_vector
from thoughtgraph.domain.changes import ChangeKind
from thoughtgraph.domain.models import Thought
from thoughtgraph.features.topics.service import TopicService
from thoughtgraph.features.topics.summaries import TopicSummariser
from thoughtgraph.ports.clock import SystemClock
from thoughtgraph.settings import Settings
from thoughtgraph.store.cypher_store import CypherGraphStore

WORDS = ("billing", "deploys", "backups", "alerts", "onboarding")


def _pages(
    loop: LoopThread, store: CypherGraphStore, ns: str
) -> list[list[tuple[Thought, list[float]]]]:
    """Three pages of thoughts around five themes, written to ``ns``."""
    pages: list[list[tuple[Thought, list[float]]]] = [[], [], []]
    for i in range(45):
        theme = i % len(WORDS)
        vector = mix(unit_vector(D, seed=theme), unit_vector(D, seed=500 + i), 0.2 + 0.02 * i)
        thought = make_thought(ns, f"The {WORDS[theme]} note number {i}")
        write(loop, store, thought, vector)
        pages[i // 15].append((thought, vector))
    return pages


def _topics(
    loop: LoopThread, store: CypherGraphStore, ns: str
) -> dict[str, tuple[int, list[float], set[str]]]:
    """Each topic by name: its size, centroid and members' contents."""
    found = {}
    for topic in loop.run(repos(store).topics.vectors(ns)):
        members = loop.run(repos(store).topics.members(ns, topic.id, 100))
        found[topic.name] = (topic.count, topic.embedding, {t.content for t, _ in members})
    return found


def test_topics_kept_in_memory_assign_as_reading_them_each_page(
    loop: LoopThread, store: CypherGraphStore, ns: str
) -> None:
    service = TopicService(repos(store), TopicSummariser(None, 120), Settings(), SystemClock())
    kept_ns, read_ns = ns, ns + "-read"
    kept_pages, read_pages = _pages(loop, store, kept_ns), _pages(loop, store, read_ns)
    known = loop.run(service.known_topics(kept_ns))
    joined_topics = 0
    for kept, read in zip(kept_pages, read_pages, strict=True):
        with_memory = loop.run(service.assign(kept_ns, kept, known=known))
        reading = loop.run(service.assign(read_ns, read))
        assert (with_memory.assigned, with_memory.created) == (reading.assigned, reading.created)
        assert sorted(with_memory.added.values()) == sorted(reading.added.values())
        joined_topics += sum(1 for n in with_memory.added.values() if n)
    # One event per topic that gained thoughts on a page, each thought named once, in
    # revision order with no gaps.
    events = loop.run(repos(store).changes.since(kept_ns, 0, 500))
    assert [e.revision for e in events] == list(range(1, len(events) + 1))
    assigned = [e for e in events if e.kind is ChangeKind.ASSIGNED]
    assert len(assigned) == joined_topics
    named = [tid for e in assigned for tid in e.source_ids]
    assert sorted(named) == sorted(t.id for page in kept_pages for t, _ in page)
    kept_topics, read_topics = _topics(loop, store, kept_ns), _topics(loop, store, read_ns)
    assert kept_topics.keys() == read_topics.keys()
    assert len(kept_topics) > 1
    assert kept_topics == read_topics
    # What the run kept is what the store holds: the next page starts from the same place.
    stored = loop.run(service.known_topics(kept_ns)).centroids(0.7)
    mine = known.centroids(0.7)
    assert mine.ids == stored.ids
    assert np.array_equal(mine._sums, stored._sums)
    assert np.array_equal(mine._counts, stored._counts)
