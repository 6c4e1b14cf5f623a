"""Re-embedding switches a whole store to other vectors: on Neo4j its tests get a server
of their own (the session's is shared by every other test, at one dimension)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.store_backends import Neo4jTestTarget, reset_neo4j_database, service_settings
from tests.support import LoopThread, skip_or_fail
from thoughtgraph.settings import EmbedderKind, Settings
from thoughtgraph.tools.neo4j.dist import DevToolMissingError
from thoughtgraph.tools.neo4j.server import DevNeo4jServer


@pytest.fixture(scope="package")
def own_neo4j(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Neo4jTestTarget]:
    server = DevNeo4jServer(
        tmp_path_factory.mktemp("reembed-neo4j"),
        bolt_port=0,
        http_port=0,
        heap="512m",
        pagecache="128m",
    )
    try:
        server.start()
    except DevToolMissingError as exc:
        skip_or_fail(f"the Neo4j half cannot run here: {exc.message}")
    try:
        yield Neo4jTestTarget(uri=server.bolt_uri, user="neo4j", password="", database="neo4j")
    finally:
        server.stop()


@pytest.fixture
def hashed_settings(
    request: pytest.FixtureRequest, engine: str, tmp_path: Path, loop: LoopThread
) -> Callable[..., Settings]:
    """Settings of a fresh store on the test's engine with the 32-dimensional hash
    embedder (a Neo4j database of the package's own server, emptied first)."""
    target = request.getfixturevalue("own_neo4j") if engine == "neo4j" else None
    if target is not None:
        loop.run(reset_neo4j_database(target))

    def build(**overrides: Any) -> Settings:
        chosen = {"embedder": EmbedderKind.HASH, "embedding_dimension": 32, **overrides}
        return service_settings(engine, tmp_path / "data", target, **chosen)

    return build
