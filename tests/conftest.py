"""Shared fixtures. Everything here is real: engine processes, HTTP servers, models."""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from tests.knowledge_support import make_runtime
from tests.redis_server import RedisServer, redis_server
from tests.store_backends import ENGINES, Neo4jTestTarget, service_settings
from tests.support import GraphQLClient, LoopThread, serve_in_thread
from thoughtgraph.llm.embedders.base import TextEmbedder
from thoughtgraph.runtime import Runtime
from thoughtgraph.settings import EmbedderKind, Settings
from thoughtgraph.store.cypher_store import CypherGraphStore
from thoughtgraph.store.factory import open_store

# One dimension for every suite: Neo4j Community has a single user database, which the
# contract suite and the services share (each test in a namespace of its own), and a store
# keeps the dimension it was built with. It is all-MiniLM-L6-v2's.
CONTRACT_DIMENSION = 384


@pytest.fixture(scope="session")
def loop() -> Iterator[LoopThread]:
    thread = LoopThread()
    yield thread
    thread.close()


@pytest.fixture
def ns() -> str:
    """A namespace of its own for each test: tests never see each other's data."""
    return f"t-{uuid.uuid4().hex[:12]}"


# --- stores ------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def falkordb_store(
    loop: LoopThread, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[CypherGraphStore]:
    settings = Settings(data_dir=tmp_path_factory.mktemp("contract-falkordb"))
    stack = contextlib.AsyncExitStack()
    store = loop.run(stack.enter_async_context(open_store(settings)))
    loop.run(store.bootstrap(embedding_dimension=CONTRACT_DIMENSION, embedder="test:contract"))
    yield store
    loop.run(stack.aclose())


@pytest.fixture(scope="session")
def neo4j_target(
    loop: LoopThread, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Neo4jTestTarget]:
    """A live Neo4j for the session: TG_TEST_NEO4J_URI's, or one started here."""
    from tests.store_backends import neo4j_for_session

    with neo4j_for_session(loop, tmp_path_factory.mktemp("neo4j")) as target:
        yield target


@pytest.fixture(scope="session")
def neo4j_store(loop: LoopThread, neo4j_target: Neo4jTestTarget) -> Iterator[CypherGraphStore]:
    from tests.store_backends import open_neo4j_store

    store = loop.run(open_neo4j_store(neo4j_target))
    loop.run(store.bootstrap(embedding_dimension=CONTRACT_DIMENSION, embedder="test:contract"))
    yield store
    loop.run(store.close())


@pytest.fixture(params=ENGINES)
def store(request: pytest.FixtureRequest) -> CypherGraphStore:
    """The store contract suite runs once per engine, with the same assertions."""
    result: CypherGraphStore = request.getfixturevalue(f"{request.param}_store")
    return result


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> str:
    """Parametrizes a test over both engines; ask for ``engine_settings`` to use it."""
    return str(request.param)


@pytest.fixture
def engine_settings(
    request: pytest.FixtureRequest, engine: str, tmp_path: Path
) -> Callable[..., Settings]:
    """Builds Settings for this test's engine: a fresh data dir, or the session's Neo4j."""
    target = request.getfixturevalue("neo4j_target") if engine == "neo4j" else None

    def build(**overrides: Any) -> Settings:
        return service_settings(engine, tmp_path / "data", target, **overrides)

    return build


# --- the service over real HTTP -----------------------------------------------------------


@pytest.fixture(scope="session")
def local_embedder() -> TextEmbedder:
    from thoughtgraph.llm.embedders.local import LocalEmbedder

    return LocalEmbedder.load()


@pytest.fixture(scope="session", params=ENGINES)
def api(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    local_embedder: TextEmbedder,
) -> Iterator[GraphQLClient]:
    """The whole service (an engine, the local embedder, GraphQL) on a loopback port, once
    per engine: every API test runs against the embedded engine and against Neo4j."""
    from thoughtgraph.server import create_app

    engine = str(request.param)
    target = request.getfixturevalue("neo4j_target") if engine == "neo4j" else None
    settings = service_settings(
        engine, tmp_path_factory.mktemp(f"api-{engine}"), target, embedder=EmbedderKind.LOCAL
    )
    with serve_in_thread(create_app(settings, embedder=local_embedder)) as base_url:
        client = GraphQLClient(base_url, engine)
        yield client
        client.close()


@pytest.fixture(scope="session")
def redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    """A real redis-server for the session (Celery broker, locks), started here."""
    with redis_server(tmp_path_factory.mktemp("redis")) as server:
        yield server


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return tmp_path / "data"


@pytest.fixture
def runtime(
    loop: LoopThread, store: CypherGraphStore, local_embedder: TextEmbedder, tmp_path: Path
) -> Iterator[Runtime]:
    """The services in-process over the test's store with default settings (a module
    defines its own ``runtime`` where it needs other settings)."""
    built = make_runtime(store, local_embedder, tmp_path)
    yield built
    loop.run(built.services.close())
