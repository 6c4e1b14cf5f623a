"""The parameter header of a FalkorDB statement (``CYPHER `a`=1 `b`="x" ...``), built as
the client builds it but faster.

FalkorDB takes parameters as Cypher literals in front of the statement text. The client
turns every value into text one element at a time, recursively: a consolidation run sends
millions of list elements (embeddings, id lists) and spent about a tenth of its time
there. This builds the same text (tests/store/test_falkordb_params.py compares it with the
client's own on every kind of value), joining flat number lists and string lists at once,
except that float lists of vector length are written with the 9 digits float32 needs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

_NUMBERS: set[type] = {float, int}
_FLOAT: set[type] = {float}
# An embedding or centroid is stored as float32 (vecf32): 9 significant digits give every
# float32 back exactly, in two thirds of the text and time of Python's shortest repr (a
# page of topic centroids is 40,000 numbers for the engine to read).
VECTOR_MIN = 16
_VECTOR_FORMAT = "%.9g"
_TEXT: set[type] = {str}


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _key(key: Any) -> str:
    name = key.decode() if isinstance(key, bytes) else str(key)
    if name == "":
        raise ValueError("Cypher parameter and map key names cannot be empty")
    if "`" in name:
        raise ValueError(f"Cypher names cannot contain a backtick: {name!r}")
    return name


def literal(value: Any, vectors: RecentVectors | None = None) -> str:
    """``value`` as the Cypher literal FalkorDB's client would write; ``vectors``: texts
    of recent vectors to reuse."""
    if isinstance(value, str):
        return _quote(value)
    if value is None:
        return "null"
    if isinstance(value, list | tuple):
        kinds = set(map(type, value))  # one pass in C: lists are almost always uniform
        if kinds == _FLOAT and len(value) >= VECTOR_MIN:
            return vectors.text(value) if vectors is not None else _vector_text(value)
        if kinds <= _NUMBERS:
            return "[" + ",".join(map(str, value)) + "]"
        if kinds == _TEXT:
            return "[" + ",".join(map(_quote, value)) + "]"
        return "[" + ",".join(map(literal, value)) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(f"`{_key(k)}`:{_member(v)}" for k, v in value.items()) + "}"
    return str(value)


class RecentVectors:
    """The texts of the vectors written last, by their numbers. A request sends the same
    vector in several statements (a contribute's write and its guidance read; a search's
    candidate reads), and a key of the numbers costs a tenth of writing them
    (docs/design/search.md). Bounded: the oldest goes first. One per store."""

    def __init__(self, kept: int = 64) -> None:
        self._kept = kept
        self._texts: dict[tuple[float, ...], str] = {}

    def text(self, value: list[float] | tuple[float, ...]) -> str:
        key = tuple(value)
        text = self._texts.get(key)
        if text is None:
            text = _vector_text(value)
            if len(self._texts) >= self._kept:
                self._texts.pop(next(iter(self._texts)), None)
            self._texts[key] = text
        return text


def _vector_text(value: list[float] | tuple[float, ...]) -> str:
    return "[" + ",".join([_VECTOR_FORMAT % x for x in value]) + "]"


def _member(value: Any) -> str:
    """A map's value: rows of ids and numbers are the common case, written inline."""
    if type(value) is str:
        return _quote(value)
    if type(value) is int or type(value) is float:
        return str(value)
    return literal(value)


def cypher_header(params: Mapping[str, Any], vectors: RecentVectors | None = None) -> str:
    """The ``CYPHER ...`` prefix for ``params`` (empty for none)."""
    if not params:
        return ""
    return "CYPHER " + "".join(f"`{_key(k)}`={literal(v, vectors)} " for k, v in params.items())
