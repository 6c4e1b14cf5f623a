"""Operational events (cypher/ops): written in batches, trimmed to a limit, counted."""

from __future__ import annotations

from collections.abc import Sequence

from thoughtgraph.domain.ops import OpsCount, OpsEvent, OpsNode, OpsStatus
from thoughtgraph.store.executor import Executor, Row


class OpsRepository:
    def __init__(self, executor: Executor) -> None:
        self._x = executor

    async def record(self, namespace: str, events: Sequence[OpsEvent]) -> int:
        if not events:
            return 0
        rows = await self._x.write(
            "ops.record",
            {"namespace": namespace, "events": [_event_params(e) for e in events]},
            namespace=namespace,
        )
        return int(rows[0]["recorded"]) if rows else 0

    async def trim(self, namespace: str, keep: int) -> int:
        """Delete all but the newest ``keep`` events of the namespace; how many went."""
        rows = await self._x.write(
            "ops.trim", {"namespace": namespace, "keep": keep}, namespace=namespace
        )
        return int(rows[0]["trimmed"]) if rows else 0

    async def namespaces(self) -> list[str]:
        """Every namespace written to, sorted."""
        return await self._x.namespaces()

    async def recent(
        self,
        namespace: str,
        *,
        since_ms: int,
        node: str | None,
        op: str | None,
        limit: int,
    ) -> list[OpsEvent]:
        rows = await self._x.read(
            "ops.list",
            {"namespace": namespace, "since": since_ms, "node": node, "op": op, "limit": limit},
            namespace=namespace,
        )
        return [_event_from_row(namespace, row) for row in rows]

    async def counts(self, namespace: str, *, since_ms: int, bucket_ms: int) -> list[OpsCount]:
        rows = await self._x.read(
            "ops.counts",
            {"namespace": namespace, "since": since_ms, "bucket": bucket_ms},
            namespace=namespace,
        )
        return [
            OpsCount(
                bucket_start_ms=int(row["bucketStart"]),
                node=str(row["node"]),
                op=str(row["op"]),
                status=str(row["status"]),
                count=int(row["count"]),
            )
            for row in rows
        ]


def _event_params(event: OpsEvent) -> dict[str, object]:
    return {
        "id": event.id,
        "node": event.node.value,
        "op": event.op,
        "status": event.status.value,
        "memoryId": event.memory_id,
        "category": event.category,
        "similarity": event.similarity,
        "at": event.at_ms,
    }


def _event_from_row(namespace: str, row: Row) -> OpsEvent:
    similarity = row.get("similarity")
    return OpsEvent(
        id=str(row["id"]),
        namespace=namespace,
        node=OpsNode(row["node"]),
        op=str(row["op"]),
        status=OpsStatus(row["status"]),
        at_ms=int(row["at"]),
        memory_id=row.get("memoryId"),
        category=row.get("category"),
        similarity=float(similarity) if similarity is not None else None,
    )
