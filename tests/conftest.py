"""Shared fixtures. Everything here is real: engine processes, HTTP servers, models."""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from app.llm.embedders.base import TextEmbedder
from app.settings import EmbedderKind, Settings
from app.store.cypher_store import CypherGraphStore
from app.store.factory import open_store
from tests.support import GraphQLClient, LoopThread, serve_in_thread

CONTRACT_DIMENSION = 8


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
def neo4j_store(loop: LoopThread) -> Iterator[CypherGraphStore | None]:
    from tests.store_backends import open_neo4j_store_from_env, wipe_neo4j_database

    store = loop.run(open_neo4j_store_from_env())
    if store is None:
        yield None
        return
    # Start from an empty disposable database (the wipe refuses non-test data).
    loop.run(wipe_neo4j_database(include_schema_meta=True))
    loop.run(store.bootstrap(embedding_dimension=CONTRACT_DIMENSION, embedder="test:contract"))
    yield store
    loop.run(store.close())


@pytest.fixture(params=["falkordb", "neo4j"])
def store(
    request: pytest.FixtureRequest,
) -> CypherGraphStore:
    """The store contract suite runs once per engine."""
    if request.param == "neo4j":
        found: CypherGraphStore | None = request.getfixturevalue("neo4j_store")
        if found is None:
            from tests.store_backends import NEO4J_SKIP_REASON

            pytest.skip(NEO4J_SKIP_REASON)
        return found
    result: CypherGraphStore = request.getfixturevalue("falkordb_store")
    return result


# --- the service over real HTTP -----------------------------------------------------------


@pytest.fixture(scope="session")
def local_embedder() -> TextEmbedder:
    from app.llm.embedders.local import LocalEmbedder

    return LocalEmbedder.load()


@pytest.fixture(scope="session")
def api(
    tmp_path_factory: pytest.TempPathFactory, local_embedder: TextEmbedder
) -> Iterator[GraphQLClient]:
    """The whole service (embedded engine, local embedder, GraphQL) on a loopback port."""
    from app.main import create_app

    settings = Settings(data_dir=tmp_path_factory.mktemp("api"), embedder=EmbedderKind.LOCAL)
    with serve_in_thread(create_app(settings, embedder=local_embedder)) as base_url:
        client = GraphQLClient(base_url)
        yield client
        client.close()


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return tmp_path / "data"
