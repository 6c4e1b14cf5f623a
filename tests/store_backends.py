"""Test access to a real Neo4j server: one the suite starts, or one named by the environment.

Without ``TG_TEST_NEO4J_URI`` the session starts its own server with ``DevNeo4jServer``
(``thoughtgraph dev-neo4j``: Neo4j Community from Maven Central) on free loopback ports.
Where Java or Maven is missing that half is skipped with the reason, except under
``CI=true``, where it is a failure. With the variable set, that server is used instead:

    TG_TEST_NEO4J_URI       bolt://host:7687 or neo4j://...
    TG_TEST_NEO4J_USER      default neo4j
    TG_TEST_NEO4J_PASSWORD  default empty (a server started with NEO4J_AUTH=none)
    TG_TEST_NEO4J_DATABASE  default neo4j
    TG_TEST_NEO4J_HTTP_URL  its HTTP address (Neo4j Browser), if the browser test should run

The database must be disposable: ``wipe_neo4j_database`` deletes every node in it. As a
guard against pointing the suite at real data, it refuses a database whose schema record
was written by anything but a test embedder (``test:...``).

The few Cypher statements here are test-only, so they live in this module rather than in
cypher/ (whose every file is product code, loaded into both engines' statement libraries
and pinned in the snapshots); tests/store/test_cypher_lint.py lints them all the same.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from neo4j import AsyncGraphDatabase

from tests.support import LoopThread, skip_or_fail
from thoughtgraph.settings import Settings
from thoughtgraph.store.cypher import StatementLibrary
from thoughtgraph.store.neo4j import Neo4jGraphStore
from thoughtgraph.tools.neo4j.dist import DevToolMissingError
from thoughtgraph.tools.neo4j.server import DevNeo4jServer

CYPHER_DIR = Path(__file__).resolve().parent.parent / "cypher"
ENGINES = ("falkordb", "neo4j")
TEST_EMBEDDER_PREFIX = "test:"

# Who built the database: only a test bootstrap (embedder "test:...") may be wiped.
SCHEMA_OWNER_STATEMENT = """\
OPTIONAL MATCH (m:SchemaMeta {key: 'schema'})
RETURN m.embedder AS embedder"""
# Deletes in batches, each its own transaction, so a large leftover graph cannot exhaust
# the transaction memory. Needs an auto-commit transaction (session.run).
WIPE_STATEMENT = """\
MATCH (n)
WHERE NOT n:SchemaMeta OR $includeSchemaMeta
CALL (n) {
  DETACH DELETE n
} IN TRANSACTIONS OF 10000 ROWS"""
# Every vector index, and one dropped: a database re-embedded by a test starts again with
# no vector index of either slot (tests/features/reembedding).
VECTOR_INDEXES_STATEMENT = "SHOW VECTOR INDEXES YIELD name RETURN name"
DROP_INDEX_STATEMENT = "DROP INDEX $name IF EXISTS"
NEO4J_TEST_STATEMENTS = {
    "tests.schema_owner": SCHEMA_OWNER_STATEMENT,
    "tests.wipe": WIPE_STATEMENT,
    "tests.vector_indexes": VECTOR_INDEXES_STATEMENT,
    "tests.drop_index": DROP_INDEX_STATEMENT,
}


@dataclass(frozen=True)
class Neo4jTestTarget:
    uri: str
    user: str
    password: str
    database: str
    http_url: str | None = None


def neo4j_target_from_env() -> Neo4jTestTarget | None:
    uri = os.environ.get("TG_TEST_NEO4J_URI", "").strip()
    if not uri:
        return None
    return Neo4jTestTarget(
        uri=uri,
        user=os.environ.get("TG_TEST_NEO4J_USER") or "neo4j",
        password=os.environ.get("TG_TEST_NEO4J_PASSWORD", ""),
        database=os.environ.get("TG_TEST_NEO4J_DATABASE") or "neo4j",
        http_url=os.environ.get("TG_TEST_NEO4J_HTTP_URL") or None,
    )


@contextlib.contextmanager
def neo4j_for_session(loop: LoopThread, home: Path) -> Iterator[Neo4jTestTarget]:
    """TG_TEST_NEO4J_URI's server, wiped; otherwise a fresh server started in ``home``.

    Skips (or, under CI=true, fails) every Neo4j test when Java or Maven is missing.
    """
    target = neo4j_target_from_env()
    if target is not None:
        loop.run(wipe_neo4j_database(target, include_schema_meta=True))
        yield target
        return
    server = DevNeo4jServer(home, bolt_port=0, http_port=0, heap="1g", pagecache="256m")
    try:
        server.start()
    except DevToolMissingError as exc:
        skip_or_fail(f"the Neo4j half of the suite cannot run here: {exc.message}")
    try:
        yield Neo4jTestTarget(
            uri=server.bolt_uri,
            user="neo4j",
            password="",
            database="neo4j",
            http_url=server.http_url,
        )
    finally:
        server.stop()


def service_settings(
    engine: str, data_dir: Path, target: Neo4jTestTarget | None, **overrides: Any
) -> Settings:
    """Settings for a service on ``engine``: the embedded engine in ``data_dir``, or the
    session's Neo4j."""
    if engine == "falkordb":
        return Settings(data_dir=data_dir, **overrides)
    if target is None:
        raise ValueError("a Neo4j service needs the session's Neo4j target")
    return Settings(
        data_dir=data_dir,
        neo4j_uri=target.uri,
        neo4j_user=target.user,
        neo4j_password=target.password,
        neo4j_database=target.database,
        **overrides,
    )


def worker_deployment_settings(
    request: Any, tmp: Path, redis_port: int, database: int, *, scan_on_write: bool
) -> Settings:
    """Settings of a service and its workers on ``request.param``'s engine: the local
    embedder, a clock file in ``tmp`` the test moves, and its own broker database
    (``database`` on the embedded engine, the next one on Neo4j), emptied first."""
    from thoughtgraph.settings import EmbedderKind
    from thoughtgraph.workers.broker import redis_client

    engine = str(request.param)
    target = request.getfixturevalue("neo4j_target") if engine == "neo4j" else None
    broker = f"redis://127.0.0.1:{redis_port}/{database + (1 if engine == 'neo4j' else 0)}"
    client = redis_client(broker)
    client.flushdb()
    client.close()
    return service_settings(
        engine,
        tmp / "data",
        target,
        embedder=EmbedderKind.LOCAL,
        broker_url=broker,
        clock_file=tmp / "clock",
        scan_on_write=scan_on_write,
    )


async def open_neo4j_store(
    target: Neo4jTestTarget,
    *,
    statements: StatementLibrary | None = None,
    statement_timeout_s: float = 10.0,
) -> Neo4jGraphStore:
    """A connected (not yet bootstrapped) store; ``StoreError`` if the server cannot be
    used: a configured Neo4j that does not answer is a failure, not a skip."""
    return await Neo4jGraphStore.connect(
        uri=target.uri,
        user=target.user,
        password=target.password,
        database=target.database,
        statements=statements or StatementLibrary.load(CYPHER_DIR, "neo4j"),
        statement_timeout_s=statement_timeout_s,
    )


async def reset_neo4j_database(target: Neo4jTestTarget) -> None:
    """Every node, the schema record and every vector index gone: as new for a test that
    re-embeds (its vector indexes have the dimensions of the test's embedders). Only for a
    server the test started itself: there is no guard here."""
    driver = AsyncGraphDatabase.driver(target.uri, auth=(target.user, target.password))
    try:
        async with driver.session(database=target.database) as session:
            wiped = await session.run(WIPE_STATEMENT, {"includeSchemaMeta": True})
            await wiped.consume()
            names = [r["name"] async for r in await session.run(VECTOR_INDEXES_STATEMENT)]
            for name in names:
                await (await session.run(DROP_INDEX_STATEMENT, {"name": name})).consume()
    finally:
        await driver.close()


async def wipe_neo4j_database(
    target: Neo4jTestTarget, *, include_schema_meta: bool = False
) -> None:
    """Delete every node and relationship of the test database; indexes and constraints
    stay. The schema record stays too unless ``include_schema_meta``, so a store that was
    bootstrapped once keeps its embedding dimension across wipes."""
    driver = AsyncGraphDatabase.driver(target.uri, auth=(target.user, target.password))
    try:
        async with driver.session(database=target.database) as session:
            record = await (await session.run(SCHEMA_OWNER_STATEMENT)).single(strict=True)
            embedder = record["embedder"]
            if embedder is not None and not str(embedder).startswith(TEST_EMBEDDER_PREFIX):
                raise RuntimeError(
                    f"refusing to wipe Neo4j database {target.database!r} at {target.uri}: "
                    f"it was built by embedder {embedder!r}, not by a test "
                    f"({TEST_EMBEDDER_PREFIX}...); point TG_TEST_NEO4J_URI at a disposable "
                    "database"
                )
            result = await session.run(WIPE_STATEMENT, {"includeSchemaMeta": include_schema_meta})
            await result.consume()
    finally:
        await driver.close()
