"""Workflows and patterns are written as every thought is, on both engines: each write asks
for the scan of what it wrote, as a contribution's does, and the listing is one read that
leaves the retired out before its limit, so a page is as full as the store allows."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.features.procedures.test_procedures import DEPLOY, author, codebase
from tests.support import LoopThread
from thoughtgraph.container import build_services
from thoughtgraph.domain.changes import Actor
from thoughtgraph.domain.models import ThoughtKind
from thoughtgraph.domain.procedures import Procedure, TemplateSlot, WorkflowStep
from thoughtgraph.features.contradictions.jobs import scan_thoughts
from thoughtgraph.features.thoughts.inputs import ThoughtInput
from thoughtgraph.llm.embedders import TextEmbedder
from thoughtgraph.ports.clock import OffsetFileClock
from thoughtgraph.runtime import Runtime
from thoughtgraph.settings import Settings
from thoughtgraph.store.cypher_store import CypherGraphStore
from thoughtgraph.tools.eval.maintenance import ScanRequests


@pytest.fixture
def scanning(
    loop: LoopThread, store: CypherGraphStore, local_embedder: TextEmbedder, tmp_path: Path
) -> Iterator[tuple[Runtime, ScanRequests]]:
    """The services with scans on write, over a queue that keeps what writes ask for (the
    evaluation's, which runs the scans as a worker would)."""
    settings = Settings(
        data_dir=tmp_path / "data", clock_file=tmp_path / "clock", scan_on_write=True
    )
    clock = OffsetFileClock(tmp_path / "clock")
    queue = ScanRequests()
    services = build_services(store, local_embedder, settings=settings, clock=clock, queue=queue)
    runtime = Runtime(
        settings=settings,
        store=store,
        embedder=local_embedder,
        clock=clock,
        queue=queue,
        services=services,
    )
    yield runtime, queue
    loop.run(services.close())


def test_a_recorded_procedure_is_scanned_like_a_contributed_thought(
    loop: LoopThread, scanning: tuple[Runtime, ScanRequests], ns: str
) -> None:
    runtime, queue = scanning
    procedures = runtime.services.procedures
    fact = loop.run(
        runtime.services.thoughts.contribute(
            ThoughtInput(
                content="Deploys run the tests, build, stage, verify, then go to prod.",
                agent_id="agent-1",
                agent_name="Agent",
                namespace=ns,
            )
        )
    ).thought
    assert queue.pending == [(ns, [fact.id])]  # what a contribution asks for

    queue.pending.clear()
    workflow = loop.run(procedures.record_workflow(author(ns), "deploy", DEPLOY))
    refined = loop.run(
        procedures.record_workflow(
            author(ns, reason="staging is verified by smoke tests"),
            "deploy",
            [*DEPLOY[:3], WorkflowStep("smoke"), DEPLOY[4]],
            refines=workflow.thought.id,
        )
    )
    pattern = loop.run(
        procedures.record_pattern(author(ns), "new endpoint", [TemplateSlot("route", "post")])
    )
    extracted = loop.run(procedures.extract_patterns(author(ns), codebase()))
    assert extracted.created == 3
    recorded = [workflow, refined, pattern, *extracted.patterns]
    assert queue.pending == [(ns, [p.thought.id]) for p in recorded]

    # The asked scan takes the workflow on as it takes the contribution on.
    for namespace, ids in queue.pending:
        assert loop.run(scan_thoughts(runtime, namespace, ids)).scanned == 1
    # An extraction that finds its patterns stored already writes, and so asks, nothing.
    queue.pending.clear()
    assert loop.run(procedures.extract_patterns(author(ns), codebase())).created == 0
    assert queue.pending == []


def test_a_listing_is_as_full_as_the_store_allows_with_the_retired_left_out(
    loop: LoopThread, runtime: Runtime, ns: str
) -> None:
    procedures = runtime.services.procedures
    clock = runtime.clock
    assert isinstance(clock, OffsetFileClock)

    def record(trigger: str, refines: Procedure | None = None) -> Procedure:
        clock.advance(1_000)  # distinct creation times: the order is the writing order
        return loop.run(
            procedures.record_workflow(
                author(ns, reason="a better way" if refines else None),
                trigger,
                DEPLOY,
                refines=refines.thought.id if refines else None,
            )
        )

    w1, w2, w3, w4, w5, w6 = (record(f"deploy {n}") for n in range(1, 7))
    r6 = record("deploy 6 again", refines=w6)
    r5 = record("deploy 5 again", refines=w5)
    loop.run(
        runtime.services.supersession.supersede(
            ns, w2.thought.id, w1.thought.id, reason="w2 replaces w1", actor=Actor(id="a", name="A")
        )
    )
    loop.run(procedures.record_pattern(author(ns), "new endpoint", [TemplateSlot("route", "p")]))

    def listed(first: int, *, retired: bool = False) -> list[str]:
        found = loop.run(
            procedures.listing(ns, ThoughtKind.WORKFLOW, first=first, include_retired=retired)
        )
        return [p.thought.id for p in found]

    def ids(*found: Procedure) -> list[str]:
        return [p.thought.id for p in found]

    # The newest three are the two refinements and w6, which r6 retired: the page goes on
    # past it (and past w5) to the next current one.
    assert listed(3) == ids(r5, r6, w4)
    assert listed(100) == ids(r5, r6, w4, w3, w2)  # w1 superseded, w5 and w6 refined
    assert listed(4, retired=True) == ids(r5, r6, w6, w5)
    assert listed(100, retired=True) == ids(r5, r6, w6, w5, w4, w3, w2, w1)
