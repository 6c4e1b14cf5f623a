"""A page's neighbours in one statement answer exactly what one vector search per thought
answers: the same thoughts, order and similarities, the subject itself left out, k and
the similarity floor applied, superseded thoughts and other namespaces not seen."""

from __future__ import annotations

import pytest

from tests.store.test_store_contract import D, make_thought, next_ms, write
from tests.support import LoopThread, mix, repos, unit_vector
from thoughtgraph.domain.changes import Actor
from thoughtgraph.domain.models import ScoredThought, Thought, ThoughtType, TimeView
from thoughtgraph.features.search.neighbours_repository import NeighbourRepository
from thoughtgraph.store.beam import MIN_CANDIDATES, OVERSAMPLE
from thoughtgraph.store.cypher_store import CypherGraphStore


def _corpus(
    loop: LoopThread, store: CypherGraphStore, ns: str
) -> list[tuple[Thought, list[float]]]:
    """Clusters of close vectors, an exact duplicate (the twin), and two merged thoughts
    (superseded: a current-only view leaves them out)."""
    written: list[tuple[Thought, list[float]]] = []
    for cluster in range(4):
        centre = unit_vector(D, seed=1000 + cluster)
        for member in range(9):
            weight = 0.05 * member
            vector = mix(centre, unit_vector(D, seed=cluster * 100 + member), weight)
            thought = make_thought(ns, f"c{cluster} m{member}")
            write(loop, store, thought, vector)
            written.append((thought, vector))
    twin = make_thought(ns, "c0 twin")
    write(loop, store, twin, written[0][1])
    written.append((twin, written[0][1]))
    (a, va), (b, _) = written[1], written[2]
    written.append((merge(loop, store, a, b, va, "merged"), va))
    return written


def merge(
    loop: LoopThread,
    store: CypherGraphStore,
    a: Thought,
    b: Thought,
    embedding: list[float],
    content: str,
) -> Thought:
    """``a`` and ``b`` merged (both superseded) into a consolidation thought."""
    merged = Thought(
        id=f"merge-{a.id}",
        namespace=a.namespace,
        type=ThoughtType.CONSOLIDATION,
        content=content,
        agent_id="maintenance",
        agent_name="maintenance",
        pheromone_weight=1.0,
        created_at_ms=next_ms(),
        source_ids=tuple(sorted((a.id, b.id))),
    )
    revision = loop.run(
        repos(store).merges.merge(
            a.namespace,
            merged,
            embedding,
            reason="dupes",
            reason_embedding=embedding,
            actor=Actor.maintenance("t"),
            run_id=None,
        )
    )
    assert revision is not None
    return merged


def _one_by_one(
    loop: LoopThread,
    store: CypherGraphStore,
    ns: str,
    subjects: list[tuple[Thought, list[float]]],
    k: int,
    floor: float,
    view: TimeView,
) -> dict[str, list[ScoredThought]]:
    found = {}
    for thought, vector in subjects:
        hits = loop.run(repos(store).thoughts.nearest(ns, vector, k, floor, view))
        found[thought.id] = [h for h in hits if h.thought.id != thought.id]
    return found


def _ranked(hits: list[ScoredThought]) -> list[tuple[float, str]]:
    return sorted((-round(h.similarity, 5), h.thought.id) for h in hits)


@pytest.mark.parametrize(("k", "floor"), [(5, -1.0), (11, 0.5), (40, 0.9)])
def test_page_neighbours_equal_one_search_per_thought(
    loop: LoopThread, store: CypherGraphStore, ns: str, k: int, floor: float
) -> None:
    subjects = _corpus(loop, store, ns)
    write(loop, store, make_thought(ns + "-other", "elsewhere"), subjects[0][1])
    view = TimeView(now_ms=next_ms(), current_only=True)
    repository = NeighbourRepository(store, oversample=OVERSAMPLE, min_candidates=MIN_CANDIDATES)
    batched = loop.run(repository.nearest(ns, [(t.id, v) for t, v in subjects], k, floor, view))
    single = _one_by_one(loop, store, ns, subjects, k, floor, view)
    assert list(batched) == list(single)
    for tid, hits in single.items():
        got = batched[tid]
        assert [h.similarity for h in got] == pytest.approx([h.similarity for h in hits])
        # Equal scores (the twin) come in id order; a single search leaves them unordered.
        assert _ranked(got) == _ranked(hits), tid
        assert all(h.similarity >= floor and h.thought.id != tid for h in got)
        assert len(got) <= k
    superseded = {subjects[1][0].id, subjects[2][0].id}
    assert not any(h.thought.id in superseded for hits in batched.values() for h in hits)
    assert any(batched.values())


def test_no_subjects_no_statement(loop: LoopThread, store: CypherGraphStore, ns: str) -> None:
    repository = NeighbourRepository(store, oversample=OVERSAMPLE, min_candidates=MIN_CANDIDATES)
    view = TimeView(now_ms=next_ms(), current_only=True)
    assert loop.run(repository.nearest(ns, [], 5, 0.0, view)) == {}
