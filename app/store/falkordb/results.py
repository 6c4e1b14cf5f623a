"""A FalkorDB statement run and its compact result set read into rows, as the client
reads them but without a coroutine per value.

The client's reader awaits one coroutine per cell, list element and vector component; a
search reads a few thousand values and spent about a tenth of its time there. Every
statement of the library projects scalars (``cypher/``), so the common kinds are read
here in plain loops; a result holding anything else (a node, an edge, a path, a
temporal value) is handed to the client's own reader, which resolves labels and keys
against the graph's schema. tests/store/test_falkordb_results.py compares the two on
every kind of value.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from falkordb.asyncio.graph import AsyncGraph
from falkordb.asyncio.query_result import QueryResult
from redis.exceptions import ResponseError

from thoughtgraph.store.cypher_store import Row

READ = "GRAPH.RO_QUERY"
WRITE = "GRAPH.QUERY"

# The compact format's value kinds (FalkorDB's resultset_formatters).
_NULL, _STRING, _INTEGER, _BOOLEAN, _DOUBLE, _ARRAY = 1, 2, 3, 4, 5, 6
_MAP, _POINT, _VECTOR_F32 = 10, 11, 12


class _NotScalar(Exception):
    """A value only the client's reader knows (it needs the graph's schema)."""


async def run_statement(
    graph: AsyncGraph, query: str, *, read_only: bool, timeout_ms: int | None
) -> list[Row]:
    """Run ``query`` (its parameter header in front) and read its rows by column name."""
    command: list[Any] = [READ if read_only else WRITE, graph.name, query, "--compact"]
    if timeout_ms is not None:
        command += ["timeout", timeout_ms]
    response = await graph.execute_command(*command)
    _raise_errors(response)
    try:
        return rows_of(response)
    except _NotScalar:
        result = QueryResult(graph)
        await result.parse(response)
        columns = [column[1] for column in result.header]
        return [dict(zip(columns, record, strict=True)) for record in result.result_set]


def _raise_errors(response: list[Any]) -> None:
    """The engine's errors as the client raises them: a refused statement's or one
    met while running (the reply's last element)."""
    for part in (response[0], response[-1]):
        if isinstance(part, ResponseError):
            raise part


def rows_of(response: list[Any]) -> list[Row]:
    """The rows of a compact reply (statistics only: none)."""
    if len(response) == 1 or not response[0]:
        return []
    columns = [_text(column[1]) for column in response[0]]
    read = _READERS.__getitem__
    try:
        # One table lookup per cell: a search reads a few thousand of them.
        return [
            dict(zip(columns, [read(cell[0])(cell[1]) for cell in row], strict=True))
            for row in response[1]
        ]
    except KeyError:  # a kind with no reader here: cell by cell, to tell which
        return [dict(zip(columns, map(_value, row), strict=True)) for row in response[1]]


def _text(value: Any) -> str:
    return value.decode() if type(value) is bytes else str(value)


def _value(cell: list[Any]) -> Any:
    reader = _READERS.get(int(cell[0]))
    if reader is None:
        raise _NotScalar(cell[0])
    return reader(cell[1])


def _null(_: Any) -> None:
    return None


def _boolean(value: Any) -> bool:
    return _text(value) == "true"


def _array(value: Any) -> list[Any]:
    return [_value(element) for element in value]


def _vector(value: Any) -> list[float]:
    return [float(component) for component in value]


def _map(value: Any) -> dict[str, Any]:
    return {_text(value[i]): _value(value[i + 1]) for i in range(0, len(value), 2)}


def _point(value: Any) -> dict[str, float]:
    return {"latitude": float(value[0]), "longitude": float(value[1])}


_READERS: dict[int, Callable[[Any], Any]] = {
    _STRING: _text,
    _NULL: _null,
    _INTEGER: int,
    _DOUBLE: float,
    _BOOLEAN: _boolean,
    _ARRAY: _array,
    _VECTOR_F32: _vector,
    _MAP: _map,
    _POINT: _point,
}
