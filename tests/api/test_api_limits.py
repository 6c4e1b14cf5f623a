"""No request can stall or exhaust the service: the hardening issue's reproductions over
real HTTP on both engines, statement timeouts on both engines, and requests abandoned by
their client cancelled."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from tests.api.test_api_lineage import CONSOLIDATE, LINEAGE, contribute, refine
from tests.store_backends import Neo4jTestTarget, open_neo4j_store
from tests.support import GraphQLClient, LoopThread, serve_in_thread
from thoughtgraph.api.http.limits import CancelOnDisconnect
from thoughtgraph.domain.errors import StoreTimeoutError
from thoughtgraph.llm.embedders.base import TextEmbedder
from thoughtgraph.server import create_app
from thoughtgraph.settings import EmbedderKind, Settings
from thoughtgraph.store.cypher import Statement, StatementLibrary
from thoughtgraph.store.cypher_store import CypherGraphStore
from thoughtgraph.store.falkordb.adapter import FalkorDBGraphStore
from thoughtgraph.store.falkordb.engine import EmbeddedFalkorDB

NESTED = """
query($id: ID!, $ns: String!) { thought(id: $id, namespace: $ns) {
  refinements { sources { refinements { sources { refinements { sources { id } } } } } }
} }
"""


def test_nested_refinements_are_refused_before_they_run(api: GraphQLClient, ns: str) -> None:
    # 185 bytes that returned 49.6 MB after 38.8 s over 10 refinements, 6 levels deep.
    root = contribute(api, ns, "root of many refinements")["thought"]["id"]
    for i in range(10):
        refine(api, ns, root, f"refinement number {i}")
    body = api.execute(NESTED, id=root, ns=ns)
    [error] = body["errors"]
    assert error["extensions"]["code"] == "QUERY_TOO_COMPLEX"
    assert error["extensions"]["cost"] > error["extensions"]["limit"]
    assert body["data"] is None


def test_lineage_of_a_wide_dag_is_bounded_and_truncated(api: GraphQLClient, ns: str) -> None:
    # 60 consolidations, 5 wide and 12 layers: lineage(maxDepth: 1) from the top ran 88 s.
    layer = [contribute(api, ns, f"base thought {i}")["thought"]["id"] for i in range(5)]
    for depth in range(1, 12):
        layer = [
            api.data(
                CONSOLIDATE,
                input={
                    "content": f"consolidation {depth}-{i}",
                    "agentId": "qa",
                    "agentName": "QA",
                    "namespace": ns,
                    "sourceIds": layer,
                },
            )["consolidate"]["thought"]["id"]
            for i in range(5)
        ]
    shallow = api.data(LINEAGE, id=layer[0], namespace=ns, maxDepth=1)["lineage"]
    assert shallow["truncated"] is True
    assert sorted(node["depth"] for node in shallow["chain"]) == [-1] * 5 + [0]
    whole = api.data(LINEAGE, id=layer[0], namespace=ns, maxDepth=10)["lineage"]
    assert whole["truncated"] is True  # the base layer is 11 steps down
    assert len(whole["chain"]) == 1 + 5 * 10


def test_a_response_over_the_cap_is_replaced_by_a_coded_error(
    engine_settings: Callable[..., Settings], local_embedder: TextEmbedder, ns: str
) -> None:
    settings = engine_settings(embedder=EmbedderKind.LOCAL, max_response_bytes=4_000)
    with serve_in_thread(create_app(settings, embedder=local_embedder)) as base_url:
        api = GraphQLClient(base_url)
        for i in range(5):
            contribute(api, ns, f"long thought {i}: " + "words " * 300)
        body = api.execute(
            "query($ns: String!) { thoughts(namespace: $ns, first: 5) { nodes { content } } }",
            ns=ns,
        )
        [error] = body["errors"]
        assert error["extensions"]["code"] == "RESPONSE_TOO_LARGE"
        assert error["extensions"]["size"] > error["extensions"]["limit"] == 4_000
        small = api.data(
            "query($ns: String!) { thoughts(namespace: $ns, first: 1) { nodes { id } } }", ns=ns
        )
        assert len(small["thoughts"]["nodes"]) == 1
        api.close()


# --- statement timeouts -------------------------------------------------------------------

# 100 million rows: many seconds on either engine, unless stopped. (A single UNWIND of a
# long range is built in full before FalkorDB first looks at the clock.)
SLOW = (
    "UNWIND range(1, 10000) AS a UNWIND range(1, 10000) AS b "
    "WITH a, b WHERE (a * b) % 7 = 0 RETURN count(*) AS n"
)


def slow_library(engine: str, cypher_dir: Path) -> StatementLibrary:
    """The service's statements plus one that runs for many seconds unless stopped."""
    library = StatementLibrary.load(cypher_dir, engine)
    slow = Statement(name="tests.slow", engine=engine, text=SLOW, source=Path("<test>"))
    return StatementLibrary(engine, {**library.by_name(), "tests.slow": [slow]})


@pytest.fixture
def timed_store(
    request: pytest.FixtureRequest, engine: str, loop: LoopThread, tmp_path: Path
) -> Iterator[CypherGraphStore]:
    """A store whose statements may run 0.3 s, on this test's engine."""
    library = slow_library(engine, Settings().cypher_dir)
    if engine == "neo4j":
        target: Neo4jTestTarget = request.getfixturevalue("neo4j_target")
        store = loop.run(open_neo4j_store(target, statements=library, statement_timeout_s=0.3))
        yield store
        loop.run(store.close())
        return
    embedded = EmbeddedFalkorDB(tmp_path / "data")
    embedded.start()
    falkordb = FalkorDBGraphStore(
        library,
        socket_path=str(embedded.socket_path),
        graph_name="timeouts",
        statement_timeout_s=0.3,
    )
    # The catalog graph must exist for a read there (a missing graph reads as empty).
    loop.run(falkordb.bootstrap(embedding_dimension=8, embedder="test:timeouts"))
    try:
        yield falkordb
    finally:
        loop.run(falkordb.close())
        embedded.stop()


def test_every_statement_is_stopped_at_the_timeout(
    loop: LoopThread, timed_store: CypherGraphStore
) -> None:
    started = time.monotonic()
    with pytest.raises(StoreTimeoutError) as caught:
        loop.run(timed_store._read("tests.slow", {}, namespace=None))
    assert caught.value.code == "STORE_TIMEOUT"
    # Without the timeout this walks 100 million rows; stopped, it returns at once.
    assert time.monotonic() - started < 30
    assert loop.run(timed_store.health()).ok  # the engine serves on


# --- a client that goes away --------------------------------------------------------------


def test_a_request_is_cancelled_when_its_client_disconnects() -> None:
    state = {"started": asyncio.Event(), "cancelled": False, "finished": False}

    async def slow(request: Request) -> PlainTextResponse:
        await request.body()
        state["started"].set()  # type: ignore[attr-defined]
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            state["cancelled"] = True
            raise
        state["finished"] = True
        return PlainTextResponse("done")

    async def quick(request: Request) -> PlainTextResponse:
        await request.body()
        return PlainTextResponse("quick")

    async def healthz(request: Request) -> PlainTextResponse:
        return PlainTextResponse("ok")

    app = Starlette(
        routes=[
            Route("/slow", slow, methods=["POST"]),
            Route("/quick", quick, methods=["POST"]),
            Route("/readyz", healthz),
        ],
        middleware=[Middleware(CancelOnDisconnect)],
    )
    with serve_in_thread(app) as base_url:
        with contextlib.suppress(httpx.ReadTimeout):
            httpx.post(f"{base_url}/slow", content=b"{}", timeout=1.0)
        deadline = time.monotonic() + 10
        while not state["cancelled"] and time.monotonic() < deadline:
            time.sleep(0.05)
        assert state["cancelled"] is True
        assert state["finished"] is False
        # A request that completes is not cancelled after its response.
        assert httpx.post(f"{base_url}/quick", content=b"{}").text == "quick"
