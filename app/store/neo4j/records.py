"""A Bolt record as a row: its plain values as they arrived, without the driver's walk.

``record.data()`` rebuilds every value through a chain of abstract-type checks (for nodes,
relationships, paths), element by element (docs/operations/load-test.md has its cost).
The statements of the library project scalars, lists and maps of them (``cypher/``), which
the driver has already decoded into Python's own types, so a record holding only those is
read as it is; anything else (a node, a temporal value) still goes through
``record.data()``, so a row is the same either way.
"""

from __future__ import annotations

from typing import Any

from neo4j import Record

from thoughtgraph.store.cypher_store import Row

_SCALARS: frozenset[type] = frozenset({str, int, float, bool, type(None)})


def row_of(record: Record) -> Row:
    values = tuple(record)
    if all(_plain(value) for value in values):
        return dict(zip(record.keys(), values, strict=True))
    return record.data()


def _plain(value: Any) -> bool:
    kind = type(value)
    if kind in _SCALARS:
        return True
    if kind is list:
        return set(map(type, value)) <= _SCALARS or all(_plain(item) for item in value)
    if kind is dict:
        return all(type(key) is str and _plain(item) for key, item in value.items())
    return False
