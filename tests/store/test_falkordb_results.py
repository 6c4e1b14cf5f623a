"""The adapter reads the embedded engine's result sets as the FalkorDB client reads them,
value for value, for every kind a statement can return (app/store/falkordb/results.py);
what it does not read itself (nodes, edges, paths, times) it hands to the client."""

from __future__ import annotations

from typing import Any

import pytest
from redis.exceptions import ResponseError

from tests.support import LoopThread
from thoughtgraph.store.cypher_store import CypherGraphStore
from thoughtgraph.store.falkordb.results import run_statement

NAMESPACE = "results"

RETURNS = {
    "null": "null",
    "text": "'a \"quoted\" text, é'",
    "empty text": "''",
    "integer": "-42",
    "big integer": "9007199254740993",
    "double": "0.1",
    "true": "true",
    "false": "false",
    "list": "[1, 'two', 3.5, null, [true]]",
    "empty list": "[]",
    "map": "{name: 'x', inner: {n: 1}, values: [1.5]}",
    "vector": "vecf32([0.1, -0.25, 3.0])",
    "point": "point({latitude: 12.5, longitude: -3.25})",
    "node": "n",
    "edge": "r",
    "path": "p",
    "date": "date('2026-11-28')",
    "datetime": "localdatetime('2026-11-28T12:30:00')",
}


@pytest.fixture(scope="module")
def graph(loop: LoopThread, falkordb_store: CypherGraphStore) -> Any:
    found = falkordb_store._graph(NAMESPACE)  # type: ignore[attr-defined]
    loop.run(found.query("MERGE (:Probe {id: 'a'})-[:NEXT {w: 2}]->(:Probe {id: 'b'})"))
    return found


def _client_rows(loop: LoopThread, graph: Any, query: str) -> list[dict[str, Any]]:
    result = loop.run(graph.ro_query(query))
    columns = [column[1] for column in result.header]
    return [dict(zip(columns, record, strict=True)) for record in result.result_set]


@pytest.mark.parametrize("kind", sorted(RETURNS))
def test_each_kind_of_value_is_read_as_the_client_reads_it(
    loop: LoopThread, graph: Any, kind: str
) -> None:
    query = (
        "MATCH p = (n:Probe {id: 'a'})-[r:NEXT]->(:Probe) "
        f"RETURN {RETURNS[kind]} AS value, 1 AS one"
    )
    ours = loop.run(run_statement(graph, query, read_only=True, timeout_ms=5000))
    assert ours == _client_rows(loop, graph, query)
    assert len(ours) == 1 and ours[0]["one"] == 1


def test_rows_and_their_absence(loop: LoopThread, graph: Any) -> None:
    many = "UNWIND range(1, 3) AS i RETURN i, toString(i) AS text ORDER BY i"
    rows = loop.run(run_statement(graph, many, read_only=True, timeout_ms=5000))
    assert rows == [{"i": 1, "text": "1"}, {"i": 2, "text": "2"}, {"i": 3, "text": "3"}]
    none = "MATCH (n:Probe {id: 'nobody'}) RETURN n.id AS id"
    assert loop.run(run_statement(graph, none, read_only=True, timeout_ms=5000)) == []
    write = "MATCH (n:Probe {id: 'a'}) SET n.seen = true"  # statistics only, no columns
    assert loop.run(run_statement(graph, write, read_only=False, timeout_ms=5000)) == []


def test_the_engine_s_errors_are_raised(loop: LoopThread, graph: Any) -> None:
    with pytest.raises(ResponseError):  # refused before running
        loop.run(run_statement(graph, "RETURN nonsense(", read_only=True, timeout_ms=5000))
    with pytest.raises(ResponseError):  # met while running
        loop.run(run_statement(graph, "RETURN 1 / 0 AS x", read_only=True, timeout_ms=5000))
    with pytest.raises(ResponseError):  # a write on the read-only command
        loop.run(run_statement(graph, "CREATE (:Probe)", read_only=True, timeout_ms=5000))
