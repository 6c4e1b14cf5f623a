"""Operational events: recorded off the write path, kept to a limit, read back and counted.

Services call :meth:`OpsRecorder.record`, which only appends to a buffer: the events are
written a moment later by a background task, one statement per namespace, so an operation
never waits for its event and never fails because of it (a write that fails is logged and
dropped). After a namespace has gained ``keep // 20`` events since its last trim (every
batch when the limit is under 20), its oldest beyond ``keep`` are deleted, so a namespace
holds at most about 5% more than ``keep`` between trims.
"""

from __future__ import annotations

import structlog

from thoughtgraph.domain import validation as check
from thoughtgraph.domain.ops import (
    OpsCount,
    OpsEvent,
    OpsNode,
    OpsStatus,
    current_node,
    new_event_id,
)
from thoughtgraph.features.access import Action, Principal, check_access
from thoughtgraph.features.ops.repository import OpsRepository
from thoughtgraph.features.write_behind import Held, WriteBehind
from thoughtgraph.ports.clock import Clock
from thoughtgraph.ports.store_status import StoreStatus

log = structlog.get_logger(__name__)

MAX_EVENTS = 500  # operationalEvents(first:)
DEFAULT_EVENTS = 50
MIN_BUCKET_MS = 1_000
MAX_BUCKET_MS = 31 * 24 * 3600 * 1000
DEFAULT_BUCKET_MS = 3600 * 1000
MAX_OP_CHARS = 64


class OpsRecorder(WriteBehind[list[OpsEvent]]):
    """Buffers events and writes them in the background (see the module docstring)."""

    not_recorded = "ops.not_recorded"  # events are best effort: never fail an operation

    def __init__(
        self,
        repository: OpsRepository,
        clock: Clock,
        *,
        keep: int,
        interval_s: float = 0.2,
        held: Held | None = None,
    ) -> None:
        super().__init__(interval_s, held)
        self._repository = repository
        self._clock = clock
        self._keep = keep
        self._trim_every = max(1, keep // 20)
        self._since_trim: dict[str, int] = {}

    @property
    def enabled(self) -> bool:
        return self._keep > 0

    def record(
        self,
        namespace: str,
        op: str,
        status: OpsStatus = OpsStatus.OK,
        *,
        memory_id: str | None = None,
        category: str | None = None,
        similarity: float | None = None,
        node: OpsNode | None = None,
    ) -> None:
        """Queue one event (``node``: the one acting now, see ``acting_as``). Never raises
        and never waits."""
        if not self.enabled:
            return
        event = OpsEvent(
            id=new_event_id(),
            namespace=namespace,
            node=node or current_node(),
            op=op,
            status=status,
            at_ms=self._clock.now_ms(),
            memory_id=memory_id,
            category=category,
            similarity=similarity,
        )
        self._batch(namespace).append(event)

    def _empty(self) -> list[OpsEvent]:
        return []

    def _merge(self, older: list[OpsEvent], newer: list[OpsEvent]) -> list[OpsEvent]:
        return older + newer

    async def _write(self, namespace: str, batch: list[OpsEvent]) -> None:
        await self._repository.record(namespace, batch)
        await self._trim_if_due(namespace, len(batch))

    async def _trim_if_due(self, namespace: str, written: int) -> None:
        # The first batch of a process trims too: the limit may have been lowered.
        since = self._since_trim.get(namespace, self._trim_every) + written
        if since < self._trim_every:
            self._since_trim[namespace] = since
            return
        self._since_trim[namespace] = 0
        trimmed = await self._repository.trim(namespace, self._keep)
        if trimmed:
            log.debug("ops.trimmed", namespace=namespace, trimmed=trimmed, keep=self._keep)


class OpsService:
    """Reads of the operational events, and the recorder every service writes through."""

    def __init__(
        self,
        repository: OpsRepository,
        status: StoreStatus,
        clock: Clock,
        *,
        keep: int,
        held: Held | None = None,
    ) -> None:
        self._repository = repository
        self.store = status  # engine, schema, health and where it is, for probes and logs
        self.recorder = OpsRecorder(self._repository, clock, keep=keep, held=held)

    async def events(
        self,
        namespace: str,
        *,
        since_ms: int = 0,
        node: OpsNode | None = None,
        op: str | None = None,
        first: int | None = None,
        caller: Principal | None = None,
    ) -> list[OpsEvent]:
        check_access(caller, Action.READ, namespace)
        check.require_namespace(namespace)
        check.require_int_range("since", since_ms, 0, 2**62)
        first = check.page_size("first", first, DEFAULT_EVENTS, MAX_EVENTS)
        if op is not None:
            op = check.require_name("op", op, MAX_OP_CHARS)
        return await self._repository.recent(
            namespace,
            since_ms=since_ms,
            node=node.value if node is not None else None,
            op=op,
            limit=first,
        )

    async def counts(
        self,
        namespace: str,
        *,
        since_ms: int = 0,
        bucket_ms: int = DEFAULT_BUCKET_MS,
        caller: Principal | None = None,
    ) -> list[OpsCount]:
        check_access(caller, Action.READ, namespace)
        check.require_namespace(namespace)
        check.require_int_range("since", since_ms, 0, 2**62)
        check.require_int_range("bucket", bucket_ms, MIN_BUCKET_MS, MAX_BUCKET_MS)
        return await self._repository.counts(namespace, since_ms=since_ms, bucket_ms=bucket_ms)

    async def readable_namespaces(self, *, caller: Principal | None = None) -> list[str]:
        """The namespaces written to that ``caller`` may read, sorted: all of them for open
        local mode and a key for every namespace (``*``), else those its key names."""
        names = await self._repository.namespaces()
        if caller is None:
            return sorted(names)
        return sorted(name for name in names if caller.may(Action.READ, name))

    async def close(self) -> None:
        await self.recorder.close()


__all__ = ["OpsNode", "OpsRecorder", "OpsService", "OpsStatus"]
