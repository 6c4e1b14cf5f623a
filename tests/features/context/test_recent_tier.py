"""The context's recent thoughts: the newest current ones, past decisions (placed in
tiers of their own) and refined thoughts, read a page at a time. Both engines."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from tests.knowledge_support import contribute
from tests.support import LoopThread
from thoughtgraph.domain.models import Thought, ThoughtKind
from thoughtgraph.features.context.gathering import RECENT, RECENT_FIRST_PAGE
from thoughtgraph.features.thoughts.inputs import ThoughtInput
from thoughtgraph.features.thoughts.repository import ThoughtRepository
from thoughtgraph.runtime import Runtime


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many thoughts each read by id asked for (the real read still runs)."""
    sizes: list[int] = []
    real = ThoughtRepository.get_many

    async def counted(
        self: ThoughtRepository, namespace: str, ids: Sequence[str]
    ) -> dict[str, Thought]:
        sizes.append(len(ids))
        return await real(self, namespace, ids)

    monkeypatch.setattr(ThoughtRepository, "get_many", counted)
    return sizes


def recent_ids(loop: LoopThread, runtime: Runtime, ns: str) -> list[str]:
    assembled = loop.run(runtime.services.context.assemble(ns, budget=8000))
    return [
        thought_id
        for item in assembled.packing.items
        if item.candidate.source == "recent"
        for thought_id in item.candidate.covers
    ]


def test_the_newest_current_thoughts_past_decisions_and_refined_ones(
    loop: LoopThread, runtime: Runtime, ns: str, reads: list[int]
) -> None:
    older = [
        contribute(loop, runtime, ns, f"Build {i} of the mobile app passed.") for i in range(10)
    ]
    for i in range(RECENT_FIRST_PAGE - 5):  # the first page: 35 decisions, 5 facts
        contribute(loop, runtime, ns, f"Decided to ship feature {i}.", kind=ThoughtKind.DECISION)
    newer = [contribute(loop, runtime, ns, f"Server {i} was restarted.") for i in range(5)]
    refinement = ThoughtInput(
        content="Server 0 was restarted twice.",
        agent_id="agent-1",
        agent_name="Agent",
        namespace=ns,
    )
    refined_by = loop.run(runtime.services.thoughts.refine(refinement, newer[0])).thought.id
    reads.clear()

    shown = recent_ids(loop, runtime, ns)

    # Newest first; the decisions are not recent items, the refined fact gives way to its
    # refinement, and the older facts come from the second page.
    assert shown == [refined_by, *reversed(newer[1:]), *reversed(older)]
    assert RECENT_FIRST_PAGE in reads and len(shown) < RECENT


def test_a_namespace_of_fresh_thoughts_reads_only_the_first_page(
    loop: LoopThread, runtime: Runtime, ns: str, reads: list[int]
) -> None:
    written = [contribute(loop, runtime, ns, f"Invoice {i} was paid.") for i in range(60)]
    reads.clear()

    shown = recent_ids(loop, runtime, ns)

    assert shown == list(reversed(written))[:RECENT]
    # The first page held RECENT fresh thoughts: the other 20 were never read.
    assert RECENT_FIRST_PAGE in reads and len(written) not in reads
    assert not [size for size in reads if size > RECENT_FIRST_PAGE]
