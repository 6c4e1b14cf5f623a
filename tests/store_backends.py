"""Test access to a real Neo4j server, named by environment variables.

    TG_TEST_NEO4J_URI       bolt://host:7687 or neo4j://...; unset: Neo4j tests are skipped
    TG_TEST_NEO4J_USER      default neo4j
    TG_TEST_NEO4J_PASSWORD  default empty (a server started with NEO4J_AUTH=none)
    TG_TEST_NEO4J_DATABASE  default neo4j

The database must be disposable: ``wipe_neo4j_database`` deletes every node in it. As a
guard against pointing the suite at real data, it refuses a database whose schema record
was written by anything but a test embedder (``test:...``).

The few Cypher statements here are test-only, so they live in this module rather than in
cypher/ (whose every file is product code, loaded into both engines' statement libraries
and pinned in the snapshots); tests/test_cypher_lint.py lints them all the same.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from neo4j import AsyncGraphDatabase

from app.store.cypher import StatementLibrary
from app.store.neo4j import Neo4jGraphStore

CYPHER_DIR = Path(__file__).resolve().parent.parent / "cypher"
NEO4J_SKIP_REASON = (
    "TG_TEST_NEO4J_URI is not set: the Neo4j half of the store contract suite did not run"
)
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
NEO4J_TEST_STATEMENTS = {
    "tests.schema_owner": SCHEMA_OWNER_STATEMENT,
    "tests.wipe": WIPE_STATEMENT,
}


@dataclass(frozen=True)
class Neo4jTestTarget:
    uri: str
    user: str
    password: str
    database: str


def neo4j_target_from_env() -> Neo4jTestTarget | None:
    uri = os.environ.get("TG_TEST_NEO4J_URI", "").strip()
    if not uri:
        return None
    return Neo4jTestTarget(
        uri=uri,
        user=os.environ.get("TG_TEST_NEO4J_USER") or "neo4j",
        password=os.environ.get("TG_TEST_NEO4J_PASSWORD", ""),
        database=os.environ.get("TG_TEST_NEO4J_DATABASE") or "neo4j",
    )


async def open_neo4j_store_from_env() -> Neo4jGraphStore | None:
    """A connected (not yet bootstrapped) store, or None when TG_TEST_NEO4J_URI is unset.

    Raises ``StoreError`` when the variable is set but the server cannot be used: a
    configured Neo4j that does not answer is a failure, not a skip.
    """
    target = neo4j_target_from_env()
    if target is None:
        return None
    return await Neo4jGraphStore.connect(
        uri=target.uri,
        user=target.user,
        password=target.password,
        database=target.database,
        statements=StatementLibrary.load(CYPHER_DIR, "neo4j"),
    )


async def wipe_neo4j_database(
    target: Neo4jTestTarget | None = None, *, include_schema_meta: bool = False
) -> None:
    """Delete every node and relationship of the test database; indexes and constraints
    stay. The schema record stays too unless ``include_schema_meta``, so a store that was
    bootstrapped once keeps its embedding dimension across wipes."""
    target = target or neo4j_target_from_env()
    if target is None:
        raise RuntimeError(NEO4J_SKIP_REASON)
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
