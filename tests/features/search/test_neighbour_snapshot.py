"""A consolidation run's in-memory neighbours (app/services/neighbour_snapshot.py) answer
what the engine's neighbour statement answers, and stay right while the run changes the
graph: a thought merged away after the vectors were read is nobody's neighbour, and the
merged thought the run adds is found. A namespace above the size cap gets no snapshot."""

from __future__ import annotations

import pytest

from tests.features.search.test_neighbours import _corpus, merge
from tests.store.test_store_contract import D, make_thought, next_ms, write
from tests.support import LoopThread, mix, unit_vector
from thoughtgraph.domain.models import ScoredThought, Thought, TimeView
from thoughtgraph.domain.scopes import Partition, Scope, Viewer
from thoughtgraph.features.consolidation.neighbour_snapshot import VectorSnapshot
from thoughtgraph.features.search.neighbours_repository import NeighbourRepository
from thoughtgraph.store.beam import MIN_CANDIDATES, OVERSAMPLE
from thoughtgraph.store.cypher_store import CypherGraphStore


def _repository(store: CypherGraphStore) -> NeighbourRepository:
    return NeighbourRepository(store, oversample=OVERSAMPLE, min_candidates=MIN_CANDIDATES)


def _load(loop: LoopThread, store: CypherGraphStore, ns: str) -> VectorSnapshot:
    snapshot = loop.run(VectorSnapshot.load(_repository(store), ns, max_thoughts=1_000))
    assert snapshot is not None
    return snapshot


@pytest.mark.parametrize(("k", "floor"), [(5, -1.0), (11, 0.5), (40, 0.9)])
def test_snapshot_answers_what_the_engine_answers(
    loop: LoopThread, store: CypherGraphStore, ns: str, k: int, floor: float
) -> None:
    subjects = _corpus(loop, store, ns)
    snapshot = _load(loop, store, ns)
    assert len(snapshot) == len(subjects) - 2  # the two merged sources are not current
    view = TimeView(now_ms=next_ms(), current_only=True)
    pairs = [(t.id, v) for t, v in subjects]
    from_engine = loop.run(_repository(store).nearest(ns, pairs, k, floor, view))
    from_memory = loop.run(snapshot.nearest(ns, pairs, k, floor, view))
    assert list(from_memory) == list(from_engine)
    for tid, hits in from_engine.items():
        got = from_memory[tid]

        # float32 here and the engine's own arithmetic differ in the sixth decimal: the
        # same thoughts and similarities, nearest first (a near-tie may swap, a hit at
        # the floor may fall either side).
        def clear(found: list[ScoredThought]) -> set[str]:
            return {h.thought.id for h in found if h.similarity > floor + 1e-4}

        assert clear(got) == clear(hits), tid
        similarities = [h.similarity for h in got]
        assert similarities == sorted(similarities, reverse=True)
        assert sorted(similarities) == pytest.approx(
            sorted(h.similarity for h in hits), abs=1e-5
        ) or len(got) != len(hits)
    assert any(from_memory.values())


def test_a_thought_merged_during_the_run_leaves_and_its_merge_joins(
    loop: LoopThread, store: CypherGraphStore, ns: str
) -> None:
    subjects = _corpus(loop, store, ns)
    snapshot = _load(loop, store, ns)
    view = TimeView(now_ms=next_ms(), current_only=True)
    (probe, probe_vector), (a, a_vector), (b, _) = subjects[9], subjects[10], subjects[11]
    before = loop.run(snapshot.nearest(ns, [(probe.id, probe_vector)], 8, -1.0, view))
    assert {a.id, b.id} <= {h.thought.id for h in before[probe.id]}

    merged = merge(loop, store, a, b, a_vector, "merged during the run")
    snapshot.add(merged, a_vector)
    view = TimeView(now_ms=next_ms(), current_only=True)
    after = loop.run(snapshot.nearest(ns, [(probe.id, probe_vector)], 8, -1.0, view))
    found = [h.thought.id for h in after[probe.id]]
    assert a.id not in found and b.id not in found
    assert merged.id in found
    assert len(found) == 7  # k counts the subject itself, as the engine's statement does
    assert snapshot.get(merged.id) == pytest.approx(a_vector, abs=1e-6)


def test_no_snapshot_above_the_cap_or_for_an_empty_namespace(
    loop: LoopThread, store: CypherGraphStore, ns: str
) -> None:
    repository = _repository(store)
    for i in range(3):
        thought = make_thought(ns, f"thought {i}")
        write(loop, store, thought)
    assert loop.run(VectorSnapshot.load(repository, ns, max_thoughts=2)) is None
    assert loop.run(VectorSnapshot.load(repository, ns, max_thoughts=3)) is not None
    assert loop.run(VectorSnapshot.load(repository, ns + "-empty", max_thoughts=3)) is None


def test_a_snapshot_only_where_it_pays() -> None:
    """Reading the namespace's vectors pays for a run over a large share of it; a few
    candidates in a large namespace ask the engine, as does a namespace above the cap."""
    assert VectorSnapshot.worth_loading(1_000, 10_000, max_thoughts=200_000)
    assert not VectorSnapshot.worth_loading(50, 10_000, max_thoughts=200_000)
    assert not VectorSnapshot.worth_loading(300_000, 300_000, max_thoughts=200_000)
    assert not VectorSnapshot.worth_loading(0, 0, max_thoughts=10)


def test_a_subjects_partition_is_kept_before_the_k_cut(
    loop: LoopThread, store: CypherGraphStore, ns: str
) -> None:
    """Ann's private thought has six of Bob's private thoughts nearer than the one other
    thought of Ann's. Asked for its 3 nearest (itself included) within Ann's partition,
    the engine and the snapshot both find Ann's other thought (filtering after the cut
    found none), and a shared subject sees only shared thoughts."""
    centre = unit_vector(D, seed=77)
    ann, bob = (Scope.PRIVATE, "ann"), (Scope.PRIVATE, "bob")

    def owned(content: str, partition: Partition, vector: list[float]) -> Thought:
        thought = make_thought(ns, content).model_copy(
            update={"scope": partition[0], "owner_id": partition[1]}
        )
        write(loop, store, thought, vector)
        return thought

    subject = owned("ann's subject", ann, centre)
    for n in range(6):
        owned(f"bob's {n}", bob, mix(centre, unit_vector(D, seed=700 + n), 0.05))
    anns_other = owned("ann's other", ann, mix(centre, unit_vector(D, seed=800), 0.3))
    shared = owned("shared", (Scope.SHARED, None), mix(centre, unit_vector(D, seed=900), 0.4))
    view = TimeView(now_ms=next_ms(), current_only=True, viewer=Viewer.everyone())
    pairs = [(subject.id, centre), (shared.id, centre)]
    partitions = {subject.id: ann, shared.id: (Scope.SHARED, None)}

    unfiltered = loop.run(_repository(store).nearest(ns, pairs[:1], 3, -1.0, view))
    assert [h.thought.owner_id for h in unfiltered[subject.id]] == ["bob", "bob"]
    snapshot = _load(loop, store, ns)
    for source in (_repository(store), snapshot):
        found = loop.run(source.nearest(ns, pairs, 3, -1.0, view, partitions=partitions))
        assert [h.thought.id for h in found[subject.id]] == [anns_other.id], source
        assert found[shared.id] == [], source  # the only shared thought is the subject
