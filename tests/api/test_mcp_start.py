"""The bench's MCP start row (`thoughtgraph bench`, app/tools/bench/mcp_start.py): a real
`thoughtgraph mcp` over stdio, timed from its spawn until `initialize` and `tools/list`
answered, on both engines."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from tests.api.test_mcp import TOOLS
from thoughtgraph.settings import EmbedderKind, Settings
from thoughtgraph.tools.bench.mcp_start import LABEL, measure_mcp_start, time_mcp_start


@pytest.fixture
def start_settings(
    request: pytest.FixtureRequest, engine: str, engine_settings: Callable[..., Settings]
) -> Settings:
    if engine == "neo4j":
        request.getfixturevalue("neo4j_store")  # the suite's schema (hash embedder, 384)
    return engine_settings(embedder=EmbedderKind.HASH, embedding_dimension=384)


def test_the_bench_times_an_mcp_start_over_stdio(start_settings: Settings) -> None:
    start = time_mcp_start(start_settings)
    assert 0 < start.initialized_s <= start.listed_s < 120
    assert start.tools == len(TOOLS)
    (row,) = measure_mcp_start(start_settings, runs=1)
    assert (row.size, row.label) == (None, LABEL)
    assert re.fullmatch(rf"\d+\.\d\d s / \d+\.\d\d s \({len(TOOLS)} tools, 1 starts\)", row.value)
