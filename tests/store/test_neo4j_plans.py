"""Every Neo4j statement is planned by the live server, and none scans a whole label.

A namespace's reads must cost what its own data costs: a plan that starts from a label
scan (every Thought of every namespace) or an all-nodes scan would grow with the other
namespaces. The server's own planner is the judge, so this runs EXPLAIN on the session's
Neo4j for every statement in the library.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from neo4j import AsyncGraphDatabase, NotificationMinimumSeverity

from tests.store_backends import Neo4jTestTarget
from tests.support import LoopThread
from thoughtgraph.settings import Settings
from thoughtgraph.store.cypher import StatementLibrary
from thoughtgraph.store.neo4j_names import namespace_index, namespace_label

SCANS = frozenset(
    {
        "AllNodesScan",
        "NodeByLabelScan",
        "DirectedRelationshipTypeScan",
        "UndirectedRelationshipTypeScan",
        "DirectedAllRelationshipsScan",
        "UndirectedAllRelationshipsScan",
    }
)
NAMESPACE = "plans"
# Values for every parameter any statement takes; EXPLAIN only plans, it writes nothing.
PARAMS: dict[str, Any] = {
    "namespace": NAMESPACE,
    "namespaceLabel": namespace_label(NAMESPACE),
    "namespaceIndex": namespace_index(NAMESPACE),
    "id": str(uuid.uuid4()),
    "ids": [str(uuid.uuid4())],
    "thoughtId": str(uuid.uuid4()),
    "sourceIds": [str(uuid.uuid4())],
    "type": "original",
    "tag": "t",
    "agentId": "a",
    "agentName": "A",
    "content": "c",
    "context": None,
    "sessionId": None,
    "tags": [],
    "pheromoneWeight": 1.0,
    "createdAt": 1,
    "afterCreatedAt": None,
    "afterId": None,
    "afterRevision": 0,
    "limit": 10,
    "rowLimit": 11,
    "k": 10,
    "candidates": 40,
    "embedding": [0.1] * 384,
    "reason": None,
    "reasonEmbedding": None,
    "eventId": "e",
    "eventKind": "created",
    "query": "word",
    "rows": [],
    "dimension": 384,
    "embedder": "test:plans",
    "schemaVersion": 2,
    "now": 1,
    "indexName": namespace_index(NAMESPACE),
    "timeoutSeconds": 1,
    "events": [],
    "keep": 10,
    "since": 0,
    "node": None,
    "op": None,
    "bucket": 60_000,
    "runId": None,
    "runIds": ["r"],
}


def statements() -> Iterator[tuple[str, str]]:
    library = StatementLibrary.load(Settings().cypher_dir, "neo4j")
    for statement in library.statements():
        if statement.name.startswith("schema."):
            continue  # schema commands have no query plan
        yield statement.name, statement.text


def operators(plan: Any) -> Iterator[str]:
    yield plan.get("operatorType", "").split("@")[0]
    for child in plan.get("children", []):
        yield from operators(child)


@pytest.mark.parametrize(("name", "text"), list(statements()), ids=lambda v: str(v)[:40])
def test_statement_seeks_an_index_instead_of_scanning(
    loop: LoopThread, neo4j_store: object, neo4j_target: Neo4jTestTarget, name: str, text: str
) -> None:
    del neo4j_store  # bootstrapped: the indexes the plans should use exist

    async def explain() -> list[str]:
        driver = AsyncGraphDatabase.driver(
            neo4j_target.uri,
            auth=(neo4j_target.user, neo4j_target.password),
            notifications_min_severity=NotificationMinimumSeverity.OFF,
        )
        try:
            async with driver.session(database=neo4j_target.database) as session:
                summary = await (await session.run("EXPLAIN " + text, PARAMS)).consume()
                assert summary.plan is not None
                return list(operators(summary.plan))
        finally:
            await driver.close()

    found = loop.run(explain())
    scans = [operator for operator in found if operator in SCANS]
    assert not scans, f"{name} scans instead of seeking: {' <- '.join(found)}"
