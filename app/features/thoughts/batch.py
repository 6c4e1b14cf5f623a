"""Writing a batch of originals (contributeMany, the text import): one statement per
namespace, the ids a retry finds already stored answered from the store."""

from __future__ import annotations

from collections.abc import Sequence

import structlog

from thoughtgraph.domain.errors import StoreError
from thoughtgraph.domain.models import Contribution, Thought, ThoughtRecord
from thoughtgraph.domain.ops import OpsEvents, OpsStatus
from thoughtgraph.features.repositories import Repositories
from thoughtgraph.features.thoughts.inputs import BatchWrite
from thoughtgraph.ports.jobs import JobQueue

log = structlog.get_logger(__name__)


async def write_batch(
    repos: Repositories,
    records: Sequence[ThoughtRecord],
    *,
    events: OpsEvents,
    queue: JobQueue | None,
) -> BatchWrite:
    """Write originals with one statement per namespace; ``queue``: where to ask for
    scans of what was written (None: no scan on write)."""
    if not records:
        return BatchWrite(contributions=[], written=0)
    by_namespace: dict[str, list[ThoughtRecord]] = {}
    for record in records:
        by_namespace.setdefault(record.thought.namespace, []).append(record)
    outcome: dict[str, Thought] = {}
    written_count = 0
    for namespace, group in by_namespace.items():
        written = await repos.transfer.ingest_originals(namespace, group)
        for r in group:
            if r.thought.id in written:
                outcome[r.thought.id] = r.thought.model_copy(
                    update={"revision": written[r.thought.id]}
                )
        # Ids a retry finds already stored: what the store holds is the answer.
        skipped = [r.thought.id for r in group if r.thought.id not in written]
        for r in group:
            status = OpsStatus.OK if r.thought.id in written else OpsStatus.SKIPPED
            events.record(
                namespace, "create", status, memory_id=r.thought.id, category=r.thought.category
            )
        outcome |= await repos.thoughts.get_many(namespace, skipped) if skipped else {}
        written_count += len(written)
        if written and queue is not None:
            queue.scan_after_write(namespace, list(written))
        log.info("thoughts.batch_written", namespace=namespace, written=len(written))
    missing = [r.thought.id for r in records if r.thought.id not in outcome]
    if missing:
        raise StoreError(f"{len(missing)} thought(s) of the batch were not written")
    contributions = [Contribution(thought=outcome[r.thought.id]) for r in records]
    return BatchWrite(contributions=contributions, written=written_count)
