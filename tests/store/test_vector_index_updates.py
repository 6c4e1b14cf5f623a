"""A thought's vector stays findable exactly once however often the thought changes.

FalkorDB's vector index re-inserted a node's vector on every SET to the node, so a k=20
query over thoughts written through `create` (which sets a label and the revision after
the CREATE) and touched a few times answered with a handful of distinct thoughts. The
store keeps FalkorDB's thought vectors on nodes of their own; these tests hold both
engines to "k asked, k distinct thoughts back", before and after many updates, and check
that a store built with the previous layout is upgraded in place.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from falkordb import FalkorDB

from tests.conftest import CONTRACT_DIMENSION
from tests.store.test_store_contract import make_thought, write
from tests.support import LoopThread, repos, unit_vector
from thoughtgraph.domain.changes import Actor
from thoughtgraph.domain.models import ThoughtState, TimeView, now_ms
from thoughtgraph.features.search.repository import RetrievalRepository
from thoughtgraph.settings import Settings
from thoughtgraph.store.cypher_store import SCHEMA_VERSION, CypherGraphStore
from thoughtgraph.store.factory import open_store
from thoughtgraph.store.falkordb.adapter import FalkorDBGraphStore
from thoughtgraph.store.falkordb.engine import EmbeddedFalkorDB

D = CONTRACT_DIMENSION
THOUGHTS = 60
K = 20
INDEXES = "CALL db.indexes() YIELD label, types RETURN label, types"


def distinct_hits(loop: LoopThread, store: CypherGraphStore, ns: str, k: int) -> list[str]:
    ids = loop.run(repos(store).thoughts.raw_nearest_ids(ns, unit_vector(D, seed=4242), k))
    assert len(ids) == len(set(ids)), "the index answered one thought twice"
    return ids


def test_k_distinct_thoughts_after_many_updates(
    loop: LoopThread, store: CypherGraphStore, ns: str
) -> None:
    thoughts = [make_thought(ns, f"thought {i}") for i in range(THOUGHTS)]
    for i, thought in enumerate(thoughts):
        write(loop, store, thought, unit_vector(D, seed=i))
    assert len(distinct_hits(loop, store, ns, K)) == K
    counts = {t.id: 1 for t in thoughts}
    for round_ in range(5):  # each search that returns a thought counts it: a SET each
        loop.run(repos(store).retention.touch(ns, counts, now_ms() + round_))
    assert len(distinct_hits(loop, store, ns, K)) == K
    # The filtered search the service runs still fills its k as well.
    hits = loop.run(repos(store).thoughts.nearest(ns, unit_vector(D, seed=4242), K, -1.0))
    assert len({hit.thought.id for hit in hits}) == K
    assert all(hit.thought.access_count == 5 for hit in hits)


def test_a_purged_thought_leaves_no_vector_behind(
    loop: LoopThread, store: CypherGraphStore, ns: str
) -> None:
    thoughts = [make_thought(ns, f"thought {i}") for i in range(10)]
    for i, thought in enumerate(thoughts):
        write(loop, store, thought, unit_vector(D, seed=i))
    doomed = thoughts[:4]
    at = now_ms()
    actor = Actor(id="test", name="Test")
    for thought in doomed:
        assert loop.run(
            repos(store).retention.set_state(
                ns,
                thought.id,
                ThoughtState.SOFT_DELETED,
                purge_at_ms=at - 1,
                actor=actor,
                at_ms=at - 10,
            )
        )
    assert loop.run(repos(store).retention.purge_due(ns, actor=actor, at_ms=at, limit=100)) == 4
    left = distinct_hits(loop, store, ns, 10)
    assert set(left) == {t.id for t in thoughts[4:]}
    view = TimeView(now_ms=at, include_forgotten=True)
    hits = loop.run(repos(store).thoughts.nearest(ns, unit_vector(D, seed=1), 10, -1.0, view))
    assert {hit.thought.id for hit in hits} == {t.id for t in thoughts[4:]}


def test_topic_search_follows_every_centroid_change(
    loop: LoopThread, store: CypherGraphStore, ns: str
) -> None:
    """Topics change on every assignment (counts, centroid): the first tier of a two-tier
    search still finds each once, and by its newest centroid."""
    actor = Actor(id="test", name="Test")
    members = [make_thought(ns, f"member {i}") for i in range(12)]
    for i, thought in enumerate(members):
        write(loop, store, thought, unit_vector(D, seed=500 + i))
    at = now_ms()
    for i in range(12):
        topic_id = f"topic-{i}"
        assert loop.run(
            repos(store).topics.create(
                ns,
                topic_id,
                f"topic {i}",
                unit_vector(D, seed=i),
                actor=actor,
                at_ms=at,
                first_thought_id=members[i].id,
            )
        )
        assert loop.run(
            repos(store).topics.summarise(
                ns, topic_id, f"summary {i}", summariser="test", actor=actor, at_ms=at
            )
        )
    moved = unit_vector(D, seed=999)
    for i, member in enumerate(members):  # each topic is written to again: a SET each
        centroid = moved if i == 0 else unit_vector(D, seed=i)
        assignment = [(f"topic-{i}", [member.id], centroid)]
        assert loop.run(repos(store).topics.assign_many(ns, assignment, actor=actor, at_ms=at + 1))
    topics = RetrievalRepository(store)
    found = loop.run(topics.topics(ns, unit_vector(D, seed=4242), 12))
    assert len({topic.id for topic, _ in found}) == 12
    nearest, similarity = loop.run(topics.topics(ns, moved, 1))[0]
    assert nearest.id == "topic-0" and similarity > 0.99


def test_a_store_of_the_previous_layout_is_upgraded_in_place(tmp_path: Path) -> None:
    """Schema 2 indexed the vector on the thought itself: opening it moves the vectors to
    their own nodes, drops the old index, and every thought is found again, once; the
    indexes added in later versions are built too."""
    data_dir = tmp_path / "data"
    engine = EmbeddedFalkorDB(data_dir)
    engine.start()
    try:
        client = FalkorDB(unix_socket_path=str(engine.socket_path))
        client.select_graph("thoughtgraph").query(
            "CREATE (:SchemaMeta {key: 'schema', embeddingDimension: $d, embedder: 'old',"
            " schemaVersion: 2, createdAt: 1})",
            {"d": D},
        )
        graph = client.select_graph("thoughtgraph:ns:old")
        for label in ("Thought", "Topic"):
            graph.query(
                f"CREATE VECTOR INDEX FOR (n:{label}) ON (n.embedding) "
                f"OPTIONS {{dimension: {D}, similarityFunction: 'cosine'}}"
            )
        for i in range(12):
            graph.query(
                "CREATE (t:Thought {id: $id, namespace: 'old', type: 'original',"
                " content: $content, agentId: 'a', agentName: 'A', tags: [], sourceIds: [],"
                " pheromoneWeight: 1.0, createdAt: 1, revision: $i, kind: 'fact',"
                " salience: 0.5, importance: 3, pinned: false, accessCount: 0,"
                " state: 'active', embedding: vecf32($v)}) SET t:Original",
                {
                    "id": f"00000000-0000-4000-8000-{i:012d}",
                    "content": f"old {i}",
                    "i": i + 1,
                    "v": unit_vector(D, seed=i),
                },
            )
        client.close()
    finally:
        engine.stop()
    loop = LoopThread()
    stack = contextlib.AsyncExitStack()
    try:
        store = loop.run(stack.enter_async_context(open_store(Settings(data_dir=data_dir))))
        loop.run(store.bootstrap(embedding_dimension=D, embedder="old"))
        assert len(distinct_hits(loop, store, "old", 12)) == 12
        loop.run(store.bootstrap(embedding_dimension=D, embedder="old"))  # idempotent
        assert len(distinct_hits(loop, store, "old", 12)) == 12
        assert isinstance(store, FalkorDBGraphStore)
        indexes = loop.run(store.namespace_graph("old").ro_query(INDEXES)).result_set
        vector_labels = {label for label, types in indexes if "VECTOR" in str(types)}
        assert "ThoughtVector" in vector_labels
        assert not vector_labels & {"Thought", "Topic"}
    finally:
        loop.run(stack.aclose())
        loop.close()
    engine.start()
    try:
        client = FalkorDB(unix_socket_path=str(engine.socket_path))
        version = client.select_graph("thoughtgraph").ro_query(
            "MATCH (m:SchemaMeta) RETURN m.schemaVersion"
        )
        assert version.result_set == [[SCHEMA_VERSION]]
        # A clean stop leaves no vector index in the file (restarts.py), the old ones neither.
        indexes = client.select_graph("thoughtgraph:ns:old").ro_query(INDEXES).result_set
        assert not [label for label, types in indexes if "VECTOR" in str(types)]
        # And what came after the vector move (4): listings' kind and tags indexes, the
        # change log's revision index.
        fields = dict(
            client.select_graph("thoughtgraph:ns:old")
            .ro_query("CALL db.indexes() YIELD label, properties RETURN label, properties")
            .result_set
        )
        assert {"kind", "tags"} <= set(fields["Thought"])
        assert "revision" in fields["ChangeEvent"]
        client.close()
    finally:
        engine.stop()
