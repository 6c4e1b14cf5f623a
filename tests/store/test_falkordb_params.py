"""The adapter's parameter header is the FalkorDB client's own, character for character,
for every kind of value a statement sends (app/store/falkordb/params.py)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from falkordb.graph import Graph

from thoughtgraph.store.falkordb.params import RecentVectors, cypher_header, literal

VALUES: dict[str, Any] = {
    "text": 'a "quoted" \\ back\\slash, newline\n and unicode é',
    "empty": "",
    "none": None,
    "int": 42,
    "negative": -7,
    "float": 0.1,
    "tiny": 1e-05,
    "bools": [True, False],
    "flag": True,
    "short floats": [0.1, -0.25, 3.0, 1e-08, 2],
    "numpy": [np.float32(0.1), np.float64(0.2)],
    "ids": ["t-1", 'with "quote"', ""],
    "rows": [{"id": "a", "count": 1}, {"id": "b", "embedding": [0.5, 0.25]}],
    "nested": [[1, 2], ["x", None], []],
    "map": {"odd key": [1.5, "y"], "n": None},
    "tuple": (1, "two", 3.0),
    "bytes": b"raw",
}


def _client_header(params: dict[str, Any]) -> str:
    header: str = Graph._build_params_header(object.__new__(Graph), params)
    return header


@pytest.mark.parametrize("name", sorted(VALUES))
def test_each_kind_of_value_is_written_as_the_client_writes_it(name: str) -> None:
    params = {name: VALUES[name]}
    assert cypher_header(params) == _client_header(params)


def test_a_whole_statement_s_parameters() -> None:
    assert cypher_header(VALUES) == _client_header(VALUES)
    assert cypher_header({}) == ""


@pytest.mark.parametrize("bad", [{"": 1}, {"a`b": 1}, {"m": {"": 1}}, {"m": {"x`": 1}}])
def test_names_the_engine_cannot_read_are_refused(bad: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        cypher_header(bad)
    with pytest.raises(ValueError):
        _client_header(bad)


def test_a_vector_is_written_with_the_digits_float32_keeps() -> None:
    vector = np.random.default_rng(7).standard_normal(384).astype(np.float32)
    floats = [float(x) for x in vector]
    text = literal(floats)
    assert len(text) < len(_client_header({"v": floats}))
    read_back = np.asarray([float(x) for x in text[1:-1].split(",")], dtype=np.float32)
    assert np.array_equal(read_back, vector)  # every float32 exactly
    assert literal([0.5] * 15) == _client_header({"v": [0.5] * 15})[len("CYPHER `v`=") : -1]


def test_integer_lists_are_never_written_as_floats() -> None:
    big = [12_345_678_901] * 20
    assert literal(big) == "[" + ",".join(["12345678901"] * 20) + "]"


def test_a_recent_vector_is_written_once_and_the_same_each_time() -> None:
    rng = np.random.default_rng(11)
    vectors = [[float(x) for x in rng.standard_normal(64)] for _ in range(5)]
    recent = RecentVectors(kept=3)
    params = {"embedding": vectors[0], "k": 5}
    assert cypher_header(params, recent) == cypher_header(params)
    assert cypher_header(params, recent) == cypher_header(params)  # from the kept text
    assert recent.text(tuple(vectors[0])) == literal(vectors[0])
    for vector in vectors[1:]:  # more than it keeps: the oldest go, the answers stay right
        assert recent.text(vector) == literal(vector)
    assert len(recent._texts) == 3
    assert recent.text(vectors[0]) == literal(vectors[0])
    changed = [*vectors[1][:-1], vectors[1][-1] + 1e-3]
    assert recent.text(changed) == literal(changed) != literal(vectors[1])
