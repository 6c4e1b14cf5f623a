"""The thoughts a consolidation run or a scheduled scan looks at, a page at a time, with
their embeddings: the store lists the page's ids (cypher/consolidation/candidate_ids);
the thoughts come from the run's snapshot when it holds them, else from the store (and
join the snapshot, so thoughts written since it was taken are neighbours too)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence

from thoughtgraph.domain.models import Thought
from thoughtgraph.features.consolidation.neighbour_snapshot import VectorSnapshot
from thoughtgraph.features.consolidation.repository import CandidateWindow
from thoughtgraph.features.services import JobRuntime

Page = list[tuple[Thought, Sequence[float]]]


async def candidate_pages(
    runtime: JobRuntime,
    namespace: str,
    window: CandidateWindow,
    *,
    page_size: int,
    vectors: VectorSnapshot | None = None,
) -> AsyncIterator[Page]:
    """Pages of current candidates in (createdAt, id) order; a thought merged away
    between listing and reading is left out."""
    after: tuple[int, str] | None = None
    while True:
        ids = await runtime.repos.merges.candidate_ids(namespace, window, after, page_size)
        if not ids:
            return
        after = (ids[-1][1], ids[-1][0])
        held: dict[str, tuple[Thought, Sequence[float]] | None] = {
            tid: vectors.entry(tid) if vectors is not None else None for tid, _ in ids
        }
        missing = [tid for tid, entry in held.items() if entry is None]
        for thought, vector in await runtime.repos.thoughts.with_embeddings(namespace, missing):
            held[thought.id] = (thought, vector)
            if vectors is not None:
                vectors.add(thought, vector)
        page = [entry for tid, _ in ids if (entry := held.get(tid)) is not None]
        if page:
            yield page
