"""What follows every single thought write the store has answered, whichever feature wrote
it (a contribution, a refinement, a consolidation, a recorded workflow or code pattern):
the contradiction scan of the new thought is asked for, the write is logged, and its
operational event is recorded. One place, so that no path that writes a thought skips it.
"""

from __future__ import annotations

import structlog

from thoughtgraph.domain.models import Thought, ThoughtType
from thoughtgraph.domain.ops import NO_OPS_EVENTS, OpsEvents, OpsStatus
from thoughtgraph.ports.jobs import JobQueue, NoJobQueue

log = structlog.get_logger(__name__)

# The operational vocabulary for each kind of write.
OPS_FOR_TYPE = {
    ThoughtType.ORIGINAL: "create",
    ThoughtType.REFINEMENT: "update",
    ThoughtType.CONSOLIDATION: "merge",
}


class AfterWrite:
    def __init__(
        self,
        queue: JobQueue | None = None,
        *,
        scan_on_write: bool = False,
        events: OpsEvents = NO_OPS_EVENTS,
    ) -> None:
        self._queue = queue or NoJobQueue()
        self._scan_on_write = scan_on_write  # False: the scheduled sweep scans instead
        self.events = events

    @property
    def scans(self) -> JobQueue | None:
        """Where a batch of writes asks for its scans: None when the sweep scans instead."""
        return self._queue if self._scan_on_write else None

    def written(
        self,
        thought: Thought,
        *,
        revision: int,
        stored_already: bool,
        similarity: float | None = None,
    ) -> None:
        """``thought`` was written at ``revision``; ``stored_already``: the guarded create
        wrote nothing because an earlier attempt had (nothing new to scan, the event is
        SKIPPED). ``similarity``: the guidance's, for the event."""
        if not stored_already and self._scan_on_write:
            # After the write is acknowledged by the store; never blocks or fails it.
            self._queue.scan_after_write(thought.namespace, [thought.id])
        log.info(
            "thought.written",
            id=thought.id,
            type=thought.type.value,
            kind=thought.kind.value,
            namespace=thought.namespace,
            sources=len(thought.source_ids),
            revision=revision,
        )
        self.events.record(
            thought.namespace,
            OPS_FOR_TYPE[thought.type],
            OpsStatus.SKIPPED if stored_already else OpsStatus.OK,
            memory_id=thought.id,
            category=thought.category,
            similarity=similarity,
        )
