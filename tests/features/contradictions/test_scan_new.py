"""Scans of new thoughts, on both engines: what a write asks for is read back from the
change log past the namespace's scan cursor, so every written thought is scanned once,
whoever asked and however often."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.knowledge_support import advance_days, contribute, make_runtime
from tests.support import LoopThread
from thoughtgraph.features.contradictions.jobs import (
    has_unscanned,
    namespaces_with_unscanned,
    scan_new,
)
from thoughtgraph.features.thoughts.inputs import ThoughtInput
from thoughtgraph.llm.embedders import TextEmbedder
from thoughtgraph.runtime import Runtime
from thoughtgraph.store.cypher_store import CypherGraphStore


@pytest.fixture
def runtime(
    loop: LoopThread, store: CypherGraphStore, local_embedder: TextEmbedder, tmp_path: Path
) -> Iterator[Runtime]:
    runtime = make_runtime(store, local_embedder, tmp_path, scan_page_size=2)
    yield runtime
    loop.run(runtime.services.close())


def test_each_written_thought_is_scanned_once(loop: LoopThread, runtime: Runtime, ns: str) -> None:
    assert not loop.run(has_unscanned(runtime, ns))  # a namespace with nothing written
    older = contribute(loop, runtime, ns, "The billing service listens on port 8080.")
    contribute(loop, runtime, ns, "The search service keeps a warm cache.")
    newer = contribute(loop, runtime, ns, "The billing service now listens on port 9443.")
    assert loop.run(has_unscanned(runtime, ns))

    first = loop.run(scan_new(runtime, ns))  # two pages of two, the second one short
    assert (first.scanned, first.contradictions_found, first.caught_up) == (3, 1, True)
    (found,) = loop.run(runtime.services.contradictions.by_status(ns, None, 10))
    assert (found.thought_a_id, found.thought_b_id) == (older, newer)
    # The scan's own events (links, the contradiction) are past the cursor but no thought.
    position = loop.run(runtime.repos.scan_cursor.position(ns))
    assert position.scanned == position.head
    assert not loop.run(has_unscanned(runtime, ns))
    assert loop.run(scan_new(runtime, ns)).scanned == 0  # asked again: nothing new

    contribute(loop, runtime, ns, "Alice likes tea in the morning.")
    assert loop.run(scan_new(runtime, ns)).scanned == 1  # only what came since


def test_refinements_are_new_thoughts_and_the_window_bounds_a_backlog(
    loop: LoopThread, runtime: Runtime, ns: str
) -> None:
    """A backlog older than the consolidation window is the hourly scan's no longer either:
    the cursor moves past it without scanning it."""
    contribute(loop, runtime, ns, "The release train leaves every Tuesday.")
    advance_days(runtime, runtime.settings.consolidation_window_hours / 24 + 1)
    source = contribute(loop, runtime, ns, "The staging database runs PostgreSQL 14.")
    refined = loop.run(
        runtime.services.thoughts.refine(
            _input(ns, "The staging database runs PostgreSQL 14.2."),
            source,
            reason="the minor version matters",
        )
    )
    scanned = loop.run(scan_new(runtime, ns))
    assert scanned.scanned == 2 and scanned.caught_up
    assert refined.thought.id in loop.run(runtime.repos.thoughts.get_many(ns, [refined.thought.id]))
    assert not loop.run(has_unscanned(runtime, ns))


def test_the_cursor_never_moves_back(loop: LoopThread, runtime: Runtime, ns: str) -> None:
    """Two scans that overlapped: the one that finishes last may have read less."""
    for n in range(3):
        contribute(loop, runtime, ns, f"Runbook step {n}: restart the ingest worker.")
    cursor = runtime.repos.scan_cursor
    head = loop.run(cursor.position(ns)).head
    loop.run(cursor.advance(ns, head))
    loop.run(cursor.advance(ns, 1))
    assert loop.run(cursor.position(ns)).scanned == head


def test_the_sweep_asks_only_for_namespaces_behind(
    loop: LoopThread, runtime: Runtime, ns: str
) -> None:
    contribute(loop, runtime, ns, "The release train leaves every Tuesday.")
    assert ns in loop.run(namespaces_with_unscanned(runtime))
    loop.run(scan_new(runtime, ns))
    assert ns not in loop.run(namespaces_with_unscanned(runtime))


def _input(ns: str, content: str) -> ThoughtInput:
    return ThoughtInput(content=content, agent_id="agent-1", agent_name="Agent", namespace=ns)
