"""Every FalkorDB statement is planned by the embedded engine, and none reads the
labels that grow with every write (thoughts, their vector nodes, change events) by
scanning them.

Each namespace is a graph of its own on FalkorDB, so a label scan costs what the namespace
holds; for thoughts that is the whole memory. A filter that names only parameters on the
far end of a pattern ("in scope", "visible") is enough for the engine's planner to start
from a scan of that end: thought.refiners did, and took 11 ms at 10,000 thoughts where
an index seek takes 0.4. The engine's own EXPLAIN is the judge.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from tests.support import LoopThread
from thoughtgraph.settings import Settings
from thoughtgraph.store.cypher import StatementLibrary
from thoughtgraph.store.cypher_store import CypherGraphStore

NAMESPACE = "plans"
GROWING_LABELS = ("Thought", "ThoughtVector", "ChangeEvent")
SCAN = re.compile(r"(Node By Label Scan|All Node Scan) \| \(\w*:(\w+)\)")

# EXPLAIN plans without running, but FalkorDB type-checks a few parameters while it
# plans (LIMIT wants an integer, a boolean operand a boolean), so each parameter gets a
# value of its kind by its name; anything else is null.
_COUNTS = re.compile(
    r"limit|^k$|candidates|max|count|size|depth|top|skip|offset|batch|keep|cap", re.I
)
_FLAGS = re.compile(r"^(all|include|current|only|has|is|with|exclude|expand)", re.I)
_ID_LISTS = re.compile(r"ids$", re.I)
_IDS = re.compile(r"(id|namespace|name)$", re.I)


def value_for(parameter: str) -> Any:
    if _ID_LISTS.search(parameter):
        return ["a", "b"]
    if _IDS.search(parameter):
        return "x"
    if _COUNTS.search(parameter):
        return 10
    if _FLAGS.match(parameter):
        return False
    return None


def statements() -> Iterator[tuple[str, str]]:
    library = StatementLibrary.load(Settings().cypher_dir, "falkordb")
    for statement in library.statements():
        if statement.name.startswith("schema."):
            continue  # index commands and one-off migrations: no query plan to judge
        yield statement.name, statement.text


def growing_scans(plan: str) -> list[str]:
    return [label for _, label in SCAN.findall(plan) if label in GROWING_LABELS]


def test_the_plan_reader_sees_a_scan() -> None:
    plan = "Results\n    Filter\n        Node By Label Scan | (r:Thought)\n"
    assert growing_scans(plan) == ["Thought"]
    assert growing_scans("Node By Index Scan | (t:Thought)\nNode By Label Scan | (t:Topic)") == []


@pytest.fixture(scope="module")
def plans_graph(loop: LoopThread, falkordb_store: CypherGraphStore) -> Any:
    """The graph of a namespace with its indexes, which the plans should use: a write
    creates both, once for every statement."""
    loop.run(
        falkordb_store.write(
            "thought.bulk_create_originals",
            {"namespace": NAMESPACE, "rows": []},
            namespace=NAMESPACE,
        )
    )
    return falkordb_store._graph(NAMESPACE)  # type: ignore[attr-defined]


@pytest.mark.parametrize(("name", "text"), list(statements()), ids=lambda v: str(v)[:40])
def test_statement_reads_growing_labels_through_an_index(
    loop: LoopThread, plans_graph: Any, name: str, text: str
) -> None:
    params = {p: value_for(p) for p in set(re.findall(r"\$(\w+)", text))}
    plan = str(loop.run(plans_graph.explain(text, params)))
    scans = growing_scans(plan)
    assert not scans, f"{name} scans {scans} instead of seeking an index:\n{plan}"
