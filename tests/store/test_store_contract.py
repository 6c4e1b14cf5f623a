"""The store contract: every engine behaves the same through the GraphStore interface.

Runs against the embedded FalkorDB engine always, and against Neo4j when
TG_TEST_NEO4J_URI is set (reported as skipped otherwise).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass

import pytest

from tests.conftest import CONTRACT_DIMENSION
from tests.near_duplicate_support import close_pairs
from tests.support import LoopThread, axis, mix, repos, unit_vector
from thoughtgraph.domain.changes import Actor
from thoughtgraph.domain.errors import SchemaMismatchError
from thoughtgraph.domain.models import (
    ChangeKind,
    PageCursor,
    Thought,
    ThoughtFilter,
    ThoughtKind,
    ThoughtRecord,
    ThoughtType,
    new_thought_id,
)
from thoughtgraph.domain.scopes import Viewer
from thoughtgraph.store.cypher_store import CypherGraphStore

D = CONTRACT_DIMENSION
CLOCK = [1_700_000_000_000]


def next_ms() -> int:
    CLOCK[0] += 7
    return CLOCK[0]


def make_thought(
    ns: str,
    content: str = "a thought",
    *,
    kind: ThoughtType = ThoughtType.ORIGINAL,
    sources: Sequence[str] = (),
    agent: str = "agent-1",
    tags: Sequence[str] = (),
    weight: float = 1.0,
) -> Thought:
    return Thought(
        id=new_thought_id(),
        namespace=ns,
        type=kind,
        content=content,
        agent_id=agent,
        agent_name=agent.title(),
        tags=tuple(tags),
        pheromone_weight=weight,
        created_at_ms=next_ms(),
        source_ids=tuple(sources),
    )


def write(
    loop: LoopThread,
    store: CypherGraphStore,
    thought: Thought,
    embedding: Sequence[float] | None = None,
    *,
    reason: str | None = None,
    reason_embedding: Sequence[float] | None = None,
) -> int | None:
    record = ThoughtRecord(
        thought=thought,
        embedding=tuple(embedding or unit_vector(D)),
        reason=reason,
        reason_embedding=tuple(reason_embedding) if reason_embedding else None,
    )
    kind = {"original": "created", "refinement": "refined", "consolidation": "consolidated"}
    return loop.run(
        repos(store).thoughts.create(
            record,
            event_id=f"{thought.id}:{kind[thought.type.value]}",
            event_kind=kind[thought.type.value],
        )
    )


def test_bootstrap_is_idempotent_and_refuses_another_dimension(
    loop: LoopThread, store: CypherGraphStore
) -> None:
    again = loop.run(store.bootstrap(embedding_dimension=D, embedder="test:contract"))
    assert again.embedding_dimension == D
    assert again.created_now is False
    with pytest.raises(SchemaMismatchError) as caught:
        loop.run(store.bootstrap(embedding_dimension=D * 2, embedder="other"))
    assert caught.value.code == "SCHEMA_MISMATCH"
    assert f"{D}-dimensional" in caught.value.message


def test_thought_round_trips_every_field(
    loop: LoopThread, store: CypherGraphStore, ns: str
) -> None:
    tricky = 'quotes " and \' and back\\slash, newline\n, unicode 日本語 ✓, {"json": [1]} $x'
    thought = make_thought(ns, tricky, tags=["alpha", "β"]).model_copy(
        update={"context": "ctx", "session_id": "s-1"}
    )
    revision = write(loop, store, thought)
    assert revision == 1
    stored = loop.run(repos(store).thoughts.get_many(ns, [thought.id]))[thought.id]
    assert stored.model_copy(update={"revision": 0}) == thought
    assert stored.revision == 1


def test_create_with_missing_source_writes_nothing(
    loop: LoopThread, store: CypherGraphStore, ns: str
) -> None:
    source = make_thought(ns, "exists")
    write(loop, store, source)
    ghost = new_thought_id()
    refinement = make_thought(
        ns, "refines a ghost", kind=ThoughtType.CONSOLIDATION, sources=[source.id, ghost]
    )
    assert write(loop, store, refinement) is None
    assert loop.run(repos(store).thoughts.get_many(ns, [refinement.id])) == {}
    assert loop.run(repos(store).changes.revision(ns)) == 1
    assert loop.run(repos(store).lineage.refiners(ns, [source.id], Viewer.everyone())) == {}


def test_source_in_another_namespace_counts_as_missing(
    loop: LoopThread, store: CypherGraphStore, ns: str
) -> None:
    elsewhere = make_thought(ns + "-other", "other namespace")
    write(loop, store, elsewhere)
    refinement = make_thought(ns, "cross", kind=ThoughtType.REFINEMENT, sources=[elsewhere.id])
    assert write(loop, store, refinement) is None
    assert loop.run(repos(store).changes.revision(ns)) == 0


def test_retrying_a_create_never_duplicates(
    loop: LoopThread, store: CypherGraphStore, ns: str
) -> None:
    thought = make_thought(ns)
    assert write(loop, store, thought) == 1
    assert write(loop, store, thought) is None
    assert loop.run(repos(store).changes.revision(ns)) == 1
    assert len(loop.run(repos(store).changes.history(ns, thought.id, 500))) == 1


def test_vector_similarity_is_cosine_on_every_engine(
    loop: LoopThread, store: CypherGraphStore, ns: str
) -> None:
    same, orthogonal, opposite = (make_thought(ns, name) for name in ("same", "ortho", "opp"))
    write(loop, store, same, axis(D, 0))
    write(loop, store, orthogonal, axis(D, 1))
    write(loop, store, opposite, axis(D, 0, -1.0))
    hits = loop.run(repos(store).thoughts.nearest(ns, axis(D, 0), 3, -1.0))
    by_content = {hit.thought.content: hit.similarity for hit in hits}
    assert by_content["same"] == pytest.approx(1.0, abs=1e-4)
    assert by_content["ortho"] == pytest.approx(0.0, abs=1e-4)
    assert by_content["opp"] == pytest.approx(-1.0, abs=1e-4)
    assert [hit.thought.content for hit in hits] == ["same", "ortho", "opp"]


def test_close_pairs_are_the_current_thoughts_whose_cosine_reaches_the_bar(
    loop: LoopThread, store: CypherGraphStore, ns: str
) -> None:
    """The engine's pairs equal the pure rule's on the same vectors (numpy), on each
    engine: what newer-first by meaning reads instead of the vectors themselves."""
    vectors = {
        "a": axis(D, 4),
        "b": mix(axis(D, 4), axis(D, 5), 0.3),  # cosine with a about 0.82
        "c": mix(axis(D, 4), axis(D, 5), 0.6),  # with a about 0.55, with b about 0.93
        "d": axis(D, 6),
    }
    ids: dict[str, str] = {}
    for name, vector in vectors.items():
        thought = make_thought(ns, name)
        write(loop, store, thought, vector)
        ids[name] = thought.id
    # A superseded copy of a is not current: it pairs with nothing.
    gone = make_thought(ns, "superseded twin of a")
    write(loop, store, gone, axis(D, 4))
    loop.run(
        repos(store).supersession.supersede(
            ns,
            ids["a"],
            gone.id,
            reason="restated",
            reason_embedding=axis(D, 4),
            detector="test",
            confidence=1.0,
            actor=Actor(id="tester", name="Tester"),
            at_ms=next_ms(),
        )
    )
    found = loop.run(repos(store).thoughts.close_pairs(ns, [*ids.values(), gone.id], 0.75))
    by_id = {ids[name]: vector for name, vector in vectors.items()}
    assert found == close_pairs(by_id, 0.75)
    assert found == {frozenset((ids["a"], ids["b"])), frozenset((ids["b"], ids["c"]))}
    assert loop.run(repos(store).thoughts.close_pairs(ns, [ids["a"]], 0.75)) == set()


def test_vector_search_applies_threshold_and_k(
    loop: LoopThread, store: CypherGraphStore, ns: str
) -> None:
    base = axis(D, 2)
    for weight in (0.0, 0.2, 0.4, 0.9):
        write(loop, store, make_thought(ns, f"w{weight}"), mix(base, axis(D, 3), weight))
    top2 = loop.run(repos(store).thoughts.nearest(ns, base, 2, -1.0))
    assert [hit.thought.content for hit in top2] == ["w0.0", "w0.2"]
    close = loop.run(repos(store).thoughts.nearest(ns, base, 10, 0.8))
    assert {hit.thought.content for hit in close} == {"w0.0", "w0.2", "w0.4"}
    assert all(hit.similarity >= 0.8 for hit in close)


def test_namespaces_never_leak(loop: LoopThread, store: CypherGraphStore, ns: str) -> None:
    other = ns + "-x"
    vector = unit_vector(D, seed=99)
    mine, theirs = make_thought(ns, "mine"), make_thought(other, "theirs")
    write(loop, store, mine, vector)
    write(loop, store, theirs, vector)
    refinement = make_thought(
        other, "their refinement", kind=ThoughtType.REFINEMENT, sources=[theirs.id]
    )
    write(loop, store, refinement, vector, reason="because", reason_embedding=vector)
    assert [
        h.thought.id for h in loop.run(repos(store).thoughts.nearest(ns, vector, 10, -1.0))
    ] == [mine.id]
    assert loop.run(repos(store).thoughts.get_many(ns, [theirs.id])) == {}
    page = loop.run(repos(store).thoughts.page(ns, ThoughtFilter(), None, 50))
    assert [t.id for t in page.thoughts] == [mine.id]
    assert loop.run(repos(store).changes.history(ns, theirs.id, 500)) == []
    assert (
        loop.run(repos(store).lineage.walk(ns, theirs.id, max_depth=10, max_nodes=10)).depths == {}
    )
    assert loop.run(repos(store).lineage.refiners(ns, [theirs.id], Viewer.everyone())) == {}
    assert loop.run(repos(store).lineage.search_reasons(ns, vector, 10)) == []
    assert loop.run(repos(store).thoughts.fulltext(ns, "theirs", 10)) == []
    assert loop.run(repos(store).changes.revision(ns)) == 1


def test_refiners_are_batched_and_newest_first(
    loop: LoopThread, store: CypherGraphStore, ns: str
) -> None:
    a, b = make_thought(ns, "a"), make_thought(ns, "b")
    write(loop, store, a)
    write(loop, store, b)
    first = make_thought(ns, "a v2", kind=ThoughtType.REFINEMENT, sources=[a.id])
    second = make_thought(ns, "a v3", kind=ThoughtType.REFINEMENT, sources=[a.id])
    merged = make_thought(ns, "a+b", kind=ThoughtType.CONSOLIDATION, sources=[a.id, b.id])
    for thought in (first, second, merged):
        write(loop, store, thought)
    found = loop.run(repos(store).lineage.refiners(ns, [a.id, b.id, merged.id], Viewer.everyone()))
    assert found == {a.id: [merged.id, second.id, first.id], b.id: [merged.id]}


def test_lineage_walk_is_signed_and_bounded_by_depth(
    loop: LoopThread, store: CypherGraphStore, ns: str
) -> None:
    chain = [make_thought(ns, "c0")]
    write(loop, store, chain[0])
    for i in range(1, 14):
        step = make_thought(ns, f"c{i}", kind=ThoughtType.REFINEMENT, sources=[chain[-1].id])
        write(loop, store, step)
        chain.append(step)
    from_middle = loop.run(repos(store).lineage.walk(ns, chain[3].id, max_depth=10, max_nodes=200))
    assert from_middle.depths[chain[0].id] == -3
    assert from_middle.depths[chain[2].id] == -1
    assert from_middle.depths[chain[4].id] == 1
    assert from_middle.depths[chain[13].id] == 10
    assert from_middle.truncated is False  # exactly 10 refinements follow c3
    from_root = loop.run(repos(store).lineage.walk(ns, chain[0].id, max_depth=10, max_nodes=200))
    assert max(from_root.depths.values()) == 10
    assert chain[11].id not in from_root.depths
    assert from_root.truncated is True  # c11.. lie beyond


def test_lineage_walk_visits_thoughts_not_paths(
    loop: LoopThread, store: CypherGraphStore, ns: str
) -> None:
    """A DAG of consolidations 5 wide and 12 layers has 5**12 paths from its top to its
    bottom; the walk visits each thought once and stops at the node budget."""
    layer = [make_thought(ns, f"base {i}") for i in range(5)]
    for thought in layer:
        write(loop, store, thought)
    for depth in range(1, 12):
        sources = [t.id for t in layer]
        layer = [
            make_thought(ns, f"l{depth}-{i}", kind=ThoughtType.CONSOLIDATION, sources=sources)
            for i in range(5)
        ]
        for thought in layer:
            write(loop, store, thought)
    top = layer[0].id
    whole = loop.run(repos(store).lineage.walk(ns, top, max_depth=11, max_nodes=200))
    assert len(whole.depths) == 55  # the other 55 thoughts of 60, each once
    assert sorted(set(whole.depths.values())) == list(range(-11, 0))
    assert whole.truncated is False
    shallow = loop.run(repos(store).lineage.walk(ns, top, max_depth=1, max_nodes=200))
    assert set(shallow.depths.values()) == {-1} and len(shallow.depths) == 5
    assert shallow.truncated is True
    budgeted = loop.run(repos(store).lineage.walk(ns, top, max_depth=11, max_nodes=12))
    assert len(budgeted.depths) == 12 and budgeted.truncated is True


def test_lineage_edges_are_found_by_reason(
    loop: LoopThread, store: CypherGraphStore, ns: str
) -> None:
    a, b = make_thought(ns, "a"), make_thought(ns, "b")
    write(loop, store, a)
    write(loop, store, b)
    refine = make_thought(ns, "a'", kind=ThoughtType.REFINEMENT, sources=[a.id])
    write(loop, store, refine, reason="latency fix", reason_embedding=axis(D, 6))
    merge = make_thought(ns, "ab", kind=ThoughtType.CONSOLIDATION, sources=[a.id, b.id])
    write(loop, store, merge, reason="dedupe", reason_embedding=axis(D, 7))
    silent = make_thought(ns, "b'", kind=ThoughtType.REFINEMENT, sources=[b.id])
    write(loop, store, silent)  # no reason: never a hit
    hits = loop.run(repos(store).lineage.search_reasons(ns, axis(D, 7), 10))
    assert hits[0].relation.value == "CONSOLIDATES"
    assert hits[0].from_id == merge.id
    assert hits[0].reason == "dedupe"
    assert hits[0].similarity == pytest.approx(1.0, abs=1e-4)
    assert {(h.from_id, h.to_id) for h in hits} == {
        (merge.id, a.id),
        (merge.id, b.id),
        (refine.id, a.id),
    }
    assert all(h.from_id != silent.id for h in hits)


def test_list_pages_newest_first_with_filters(
    loop: LoopThread, store: CypherGraphStore, ns: str
) -> None:
    originals = [
        make_thought(
            ns,
            f"o{i}",
            tags=["even" if i % 2 == 0 else "odd"],
            agent="agent-2" if i == 4 else "agent-1",
        ).model_copy(update={"kind": ThoughtKind.DECISION if i in (1, 3, 4) else ThoughtKind.FACT})
        for i in range(5)
    ]
    for thought in originals:
        write(loop, store, thought)
    refinement = make_thought(ns, "r", kind=ThoughtType.REFINEMENT, sources=[originals[0].id])
    write(loop, store, refinement)
    seen: list[str] = []
    cursor: PageCursor | None = None
    while True:
        page = loop.run(repos(store).thoughts.page(ns, ThoughtFilter(), cursor, 2))
        seen += [t.content for t in page.thoughts]
        if not page.has_next_page:
            break
        last = page.thoughts[-1]
        cursor = PageCursor(created_at_ms=last.created_at_ms, thought_id=last.id)
    assert seen == ["r", "o4", "o3", "o2", "o1", "o0"]

    def contents(flt: ThoughtFilter) -> list[str]:
        return [t.content for t in loop.run(repos(store).thoughts.page(ns, flt, None, 50)).thoughts]

    assert contents(ThoughtFilter(type=ThoughtType.REFINEMENT)) == ["r"]
    assert contents(ThoughtFilter(tag="even")) == ["o4", "o2", "o0"]
    assert contents(ThoughtFilter(agent_id="agent-2")) == ["o4"]
    # A kind other than fact and a tag have statements of their own (list_of_kind,
    # list_tagged): the same filters and cursor apply.
    decisions = ThoughtFilter(kind=ThoughtKind.DECISION)
    assert contents(decisions) == ["o4", "o3", "o1"]
    assert contents(ThoughtFilter(kind=ThoughtKind.FACT)) == ["r", "o2", "o0"]
    assert contents(ThoughtFilter(kind=ThoughtKind.DECISION, tag="odd")) == ["o3", "o1"]
    assert contents(ThoughtFilter(kind=ThoughtKind.DECISION, agent_id="agent-2")) == ["o4"]
    assert contents(ThoughtFilter(kind=ThoughtKind.TASK)) == []
    assert contents(ThoughtFilter(tag="odd", agent_id="agent-1")) == ["o3", "o1"]
    for listing in (decisions, ThoughtFilter(tag="even")):
        first = loop.run(repos(store).thoughts.page(ns, listing, None, 2))
        last = first.thoughts[-1]
        cursor = PageCursor(created_at_ms=last.created_at_ms, thought_id=last.id)
        rest = loop.run(repos(store).thoughts.page(ns, listing, cursor, 2))
        assert first.has_next_page and not rest.has_next_page
        assert [t.content for t in (*first.thoughts, *rest.thoughts)] == contents(listing)


def test_a_tag_is_listed_whole_and_as_written(
    loop: LoopThread, store: CypherGraphStore, ns: str
) -> None:
    """Tags with the characters validation allows (spaces, '_.:/#+-', upper case) are
    found whole: not by a word of theirs, another case or a prefix, whatever the engine's
    index for tags (Neo4j: a keyword-analysed full-text index)."""
    special = "Ops Team: on-call/#1+"
    tagged = make_thought(ns, "special", tags=[special, "AND", "x.y"])
    other = make_thought(ns, "other", tags=["ops", "team", "on-call"])
    for thought in (tagged, other):
        write(loop, store, thought)

    def contents(tag: str) -> list[str]:
        page = loop.run(repos(store).thoughts.page(ns, ThoughtFilter(tag=tag), None, 10))
        return [t.content for t in page.thoughts]

    assert contents(special) == ["special"]
    assert contents("AND") == ["special"]
    assert contents("x.y") == ["special"]
    assert contents("on-call") == ["other"]
    for missing in ("ops team: on-call/#1+", "Ops Team", "Ops", "x", "and", "*", ""):
        assert contents(missing) == [], missing


def test_change_log_revisions_and_history(
    loop: LoopThread, store: CypherGraphStore, ns: str
) -> None:
    a = make_thought(ns, "a")
    write(loop, store, a)
    r = make_thought(ns, "r", kind=ThoughtType.REFINEMENT, sources=[a.id], agent="agent-9")
    write(loop, store, r)
    history = loop.run(repos(store).changes.history(ns, a.id, 500))
    assert [(e.revision, e.kind, e.thought_id) for e in history] == [
        (1, ChangeKind.CREATED, a.id),
        (2, ChangeKind.REFINED, r.id),
    ]
    assert history[1].actor_id == "agent-9"
    assert history[1].source_ids == (a.id,)
    assert [e.revision for e in loop.run(repos(store).changes.since(ns, 1, 10))] == [2]


def test_concurrent_writes_get_distinct_revisions(
    loop: LoopThread, store: CypherGraphStore, ns: str
) -> None:
    thoughts = [make_thought(ns, f"c{i}") for i in range(20)]

    async def write_all() -> list[int | None]:
        return await asyncio.gather(
            *(
                repos(store).thoughts.create(
                    ThoughtRecord(thought=t, embedding=tuple(unit_vector(D))),
                    event_id=f"{t.id}:created",
                    event_kind="created",
                )
                for t in thoughts
            )
        )

    revisions = loop.run(write_all())
    assert sorted(r for r in revisions if r is not None) == list(range(1, 21))
    assert loop.run(repos(store).changes.revision(ns)) == 20


def test_fulltext_search_matches_words(loop: LoopThread, store: CypherGraphStore, ns: str) -> None:
    write(loop, store, make_thought(ns, "the monitoring uses roles only"))
    write(loop, store, make_thought(ns, "pasta recipes"))
    hits = loop.run(repos(store).thoughts.fulltext(ns, "monitoring", 5))
    assert [hit.thought.content for hit in hits] == ["the monitoring uses roles only"]


@dataclass
class _Synthetic:
    id: str
    content: str
    agent_id: str
    agent_name: str
    tags: tuple[str, ...]
    created_at_ms: int
    embedding: list[float]


def test_bulk_load_creates_thoughts_with_events(
    loop: LoopThread, store: CypherGraphStore, ns: str
) -> None:
    write(loop, store, make_thought(ns, "before"))
    rows = [
        _Synthetic(
            new_thought_id(),
            f"bulk {i}",
            "bulk",
            "Bulk",
            ("b",),
            next_ms(),
            unit_vector(D, seed=i),
        )
        for i in range(25)
    ]
    assert loop.run(repos(store).thoughts.bulk_create_originals(ns, rows)) == 25
    assert loop.run(repos(store).changes.revision(ns)) == 26
    # Run again (as after a lost connection): nothing is written twice, no revision used.
    assert loop.run(repos(store).thoughts.bulk_create_originals(ns, rows[20:])) == 0
    assert loop.run(repos(store).changes.revision(ns)) == 26
    stored = loop.run(repos(store).thoughts.get_many(ns, [r.id for r in rows]))
    assert sorted(t.revision for t in stored.values()) == list(range(2, 27))
    hits = loop.run(repos(store).thoughts.nearest(ns, rows[3].embedding, 1, -1.0))
    assert hits[0].thought.id == rows[3].id
