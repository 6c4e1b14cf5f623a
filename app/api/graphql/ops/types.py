"""Output types of operational events and their counts."""

from __future__ import annotations

from datetime import datetime

import strawberry

from thoughtgraph.domain import models, ops
from thoughtgraph.domain.ops import OpsNode, OpsStatus

strawberry.enum(
    OpsNode,
    description="Which part of the service acted: a caller's request (hotpath), "
    "context assembly, episode ingestion, or a background worker.",
)
strawberry.enum(OpsStatus, description="How an operation ended.")


@strawberry.type(description="One operation, as seed 001's operational tracking records it.")
class OperationalEvent:
    id: strawberry.ID
    node: OpsNode
    op: str = strawberry.field(
        description="create, update, merge, search; a worker's task name (consolidate, ...)."
    )
    status: OpsStatus
    memory_id: str | None = strawberry.field(
        description="The thought (or episode) it concerned, where there was one."
    )
    category: str | None
    similarity: float | None = strawberry.field(
        description="The best neighbour's similarity, where one was found."
    )
    at: datetime

    @classmethod
    def from_domain(cls, event: ops.OpsEvent) -> OperationalEvent:
        return cls(
            id=strawberry.ID(event.id),
            node=event.node,
            op=event.op,
            status=event.status,
            memory_id=event.memory_id,
            category=event.category,
            similarity=event.similarity,
            at=models.ms_to_datetime(event.at_ms),
        )


@strawberry.type(description="How many operations of one node, op and status fell in a bucket.")
class OperationCount:
    bucket_start: datetime
    node: OpsNode
    op: str
    status: OpsStatus
    count: int

    @classmethod
    def from_domain(cls, count: ops.OpsCount) -> OperationCount:
        return cls(
            bucket_start=models.ms_to_datetime(count.bucket_start_ms),
            node=OpsNode(count.node),
            op=count.op,
            status=OpsStatus(count.status),
            count=count.count,
        )
