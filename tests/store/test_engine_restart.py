"""Restarts of the embedded engine in seconds (app/store/falkordb/restarts.py): a clean
stop drops every vector index and rewrites the engine's log without them, so the next
start loads no vector index; the start creates them again and they build while the
service serves, searching by words meanwhile, with readiness saying "degraded" until
they are built. After a crash the log keeps them (tests/store/test_engine_recovery.py)."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.support import GraphQLClient, LoopThread, eventually, serve_in_thread
from thoughtgraph.container import build_services
from thoughtgraph.domain.errors import StoreError
from thoughtgraph.domain.models import TimeView
from thoughtgraph.features.context.tokens import import_tokenizers
from thoughtgraph.features.services import Services
from thoughtgraph.features.thoughts.inputs import ThoughtInput
from thoughtgraph.llm.embedders.hashing import HashEmbedder
from thoughtgraph.server import create_app
from thoughtgraph.settings import EmbedderKind, Settings
from thoughtgraph.store.factory import open_store
from thoughtgraph.store.falkordb.adapter import FalkorDBGraphStore
from thoughtgraph.store.falkordb.restarts import create_vector_indexes
from thoughtgraph.tools.bench.data import ThoughtFactory

DIMENSION = 64
NS = "restarted"
REASON = "the harvest moved to October"
INDEXES = "CALL db.indexes() YIELD label, types RETURN label, types"


@contextlib.contextmanager
def opened(
    data_dir: Path, *, bootstrap: bool = True, dimension: int = DIMENSION
) -> Iterator[tuple[LoopThread, FalkorDBGraphStore, Services]]:
    """The store and its services as the service has them; a clean stop on exit."""
    loop = LoopThread()
    stack = contextlib.AsyncExitStack()
    store = loop.run(stack.enter_async_context(open_store(Settings(data_dir=data_dir))))
    assert isinstance(store, FalkorDBGraphStore)
    embedder = HashEmbedder(dimension=dimension)
    if bootstrap:
        loop.run(store.bootstrap(embedding_dimension=dimension, embedder=embedder.name))
    services = build_services(store, embedder)
    try:
        yield loop, store, services
    finally:
        loop.run(services.close())
        loop.run(stack.aclose())
        loop.close()


def contribute(loop: LoopThread, services: Services, content: str) -> str:
    given = ThoughtInput(content=content, agent_id="a", agent_name="A", namespace=NS)
    return loop.run(services.thoughts.contribute(given)).thought.id


def vector_indexes(loop: LoopThread, store: FalkorDBGraphStore) -> list[str]:
    rows = loop.run(store.namespace_graph(NS).ro_query(INDEXES)).result_set
    return [
        f"{label}.{prop}"
        for label, types in rows
        for prop, kinds in types.items()
        if "VECTOR" in kinds
    ]


def written_memory(loop: LoopThread, services: Services) -> str:
    """A few thoughts and a refinement with a reason: every kind of vector index used."""
    for i in range(20):
        contribute(loop, services, f"orchard note {i}: apples ripen in the south field")
    source = contribute(loop, services, "the apple harvest starts in September")
    refined = ThoughtInput(
        content="the apple harvest starts in October", agent_id="a", agent_name="A", namespace=NS
    )
    loop.run(services.thoughts.refine(refined, source, reason=REASON))
    return source


def probed_until_ready(url: str, within_s: float = 60.0) -> list[str]:
    """Every readiness status seen, probing ten times a second, until "ready"."""
    statuses: list[str] = []
    deadline = time.monotonic() + within_s
    while not statuses or statuses[-1] != "ready":
        assert time.monotonic() < deadline, statuses[-5:]
        statuses.append(httpx.get(f"{url}/readyz").json()["status"])
        time.sleep(0.1)
    return statuses


def test_a_clean_stop_leaves_no_vector_index_to_load_and_a_start_builds_them_again(
    data_dir: Path,
) -> None:
    with opened(data_dir) as (loop, store, services):
        written_memory(loop, services)
        before = sorted(vector_indexes(loop, store))
    assert len(before) == 5  # thoughts, three lineage edges, episodes

    # The log was rewritten after the indexes were dropped: what it replays creates none.
    log = b"".join(p.read_bytes() for p in (data_dir / "falkordb").glob("appendonlydir/*.aof"))
    assert b"CREATE VECTOR INDEX" not in log
    assert b"DROP VECTOR INDEX" not in log
    # The engine on its own, before the service creates anything: no vector index.
    with opened(data_dir, bootstrap=False) as (loop, store, _services):
        assert vector_indexes(loop, store) == []

    with opened(data_dir) as (loop, store, services):
        assert sorted(vector_indexes(loop, store)) == before
        health = loop.run(store.health())
        assert health.ready and health.degraded is None  # small: built before it served
        assert loop.run(store.searchable(NS))
        hits = loop.run(services.search.search(NS, "the apple harvest starts in October"))
        assert hits[0].thought.content == "the apple harvest starts in October"
        changes = loop.run(services.search.search_changes(NS, REASON))
        assert [change.reason for change in changes][:1] == [REASON]


def test_without_its_vector_indexes_a_namespace_is_searched_by_words_and_written_to(
    data_dir: Path,
) -> None:
    with opened(data_dir) as (loop, store, services):
        written_memory(loop, services)
        loop.run(store.shed_vector_indexes())  # as a stop does, the engine left running
        assert vector_indexes(loop, store) == []
        assert not loop.run(store.searchable(NS))
        assert loop.run(store.search_readiness(NS)) == (True, False)  # by words, not meaning

        hits = loop.run(services.search.search(NS, "apple harvest October"))
        assert hits[0].thought.content == "the apple harvest starts in October"
        assert loop.run(services.search.search_changes(NS, REASON)) == []  # by meaning only
        later = contribute(loop, services, "pears ripen after the apples")
        vector = HashEmbedder(DIMENSION).embed_query("pears ripen after the apples")
        # Maintenance (a scan's neighbours) fails as a store error, which its tasks retry,
        # rather than finding no neighbour and calling the thought scanned.
        view = TimeView(now_ms=int(time.time() * 1000), current_only=True)
        with pytest.raises(StoreError, match="being built"):
            loop.run(services.repos.neighbours.nearest(NS, [(later, vector)], 3, 0.0, view))

        loop.run(create_vector_indexes(store, store._statements))
        eventually(lambda: loop.run(store.searchable(NS)), what="the vector indexes")
        found = loop.run(services.repos.neighbours.nearest(NS, [(later, vector)], 3, -1.0, view))
        assert found[later]  # its nearest, itself left out
        nearest = loop.run(services.repos.thoughts.raw_nearest_ids(NS, vector, 3))
        assert later in nearest  # written without a vector index, found in the rebuilt one
        changes = loop.run(services.search.search_changes(NS, REASON))
        assert [change.reason for change in changes][:1] == [REASON]


def test_a_restarted_service_serves_at_once_degraded_until_its_vector_indexes_are_built(
    data_dir: Path,
) -> None:
    # Large enough that its vector index takes seconds to build (its load takes less).
    dimension, size = 384, 10_000
    settings = Settings(
        data_dir=data_dir,
        embedder=EmbedderKind.HASH,
        embedding_dimension=dimension,
        falkordb_index_build_wait_s=0,  # serve at once, so the build is seen from outside
    )
    with opened(data_dir, dimension=dimension) as (loop, _store, services):
        written_memory(loop, services)
        factory = ThoughtFactory(dimension=dimension)
        for batch in factory.batches(size, 1_000):
            loop.run(services.repos.thoughts.bulk_create_originals(NS, batch))

    import_tokenizers()  # as a process that has served before: the start waits for none
    started = time.monotonic()
    with serve_in_thread(create_app(settings, embedder=HashEmbedder(dimension))) as url:
        ready = httpx.get(f"{url}/readyz").json()
        assert ready["ready"] and ready["status"] == "degraded", (ready, time.monotonic() - started)
        assert "by words" in ready["degraded"]
        client = GraphQLClient(url)
        search = """query($q: String!, $ns: String!) {
            search(query: $q, k: 3, namespace: $ns) { thought { id content } } }"""
        hits = client.data(search, q="apple harvest October", ns=NS)["search"]
        assert hits[0]["thought"]["content"] == "the apple harvest starts in October"

        # The search's usage count is held while the build goes on: written now, it would
        # wait for the build's batch holding the engine's lock, and every probe and
        # request with it (each probe below has httpx's 5 s to answer).
        uses = """query($id: ID!, $ns: String!) {
            thought(id: $id, namespace: $ns) { accessCount } }"""
        found = hits[0]["thought"]["id"]
        time.sleep(1.5)  # past the usage recorder's interval
        held = client.data(uses, id=found, ns=NS)["thought"]["accessCount"]
        assert httpx.get(f"{url}/readyz").json()["status"] == "degraded"
        assert held == 0
        again = client.data(search, q="apple harvest October", ns=NS)["search"]
        assert again[0]["thought"]["id"] == found  # joins the held count
        statuses = probed_until_ready(url)
        assert set(statuses) == {"degraded", "ready"}, statuses  # never "busy" (not_ready)
        assert httpx.get(f"{url}/readyz").json()["degraded"] is None
        # Held, not lost: written once the build is done.
        eventually(
            lambda: client.data(uses, id=found, ns=NS)["thought"]["accessCount"] == 2,
            what="the held usage counts written",
        )
        client.close()
