"""Reading operational events (the newest, and counts per time bucket) and the namespaces
the caller may read."""

from __future__ import annotations

from datetime import datetime

import strawberry

from thoughtgraph.api.graphql.ops.types import OperationalEvent, OperationCount
from thoughtgraph.api.graphql.request_context import Info
from thoughtgraph.api.graphql.thoughts.inputs import optional_ms
from thoughtgraph.domain.models import DEFAULT_NAMESPACE
from thoughtgraph.domain.ops import OpsNode
from thoughtgraph.features.ops.service import DEFAULT_BUCKET_MS, DEFAULT_EVENTS

PAGE_SIZE = DEFAULT_EVENTS  # shown in the schema; an explicit null means it too
DEFAULT_BUCKET_S = DEFAULT_BUCKET_MS // 1000


async def resolve_operational_events(
    info: Info,
    namespace: str = DEFAULT_NAMESPACE,
    node: OpsNode | None = None,
    op: str | None = None,
    since: datetime | None = None,
    first: int | None = PAGE_SIZE,
) -> list[OperationalEvent]:
    events = await info.context.services.ops.events(
        namespace,
        since_ms=optional_ms(since) or 0,
        node=node,
        op=op,
        first=first,
        caller=info.context.principal,
    )
    return [OperationalEvent.from_domain(event) for event in events]


async def resolve_operation_counts(
    info: Info,
    namespace: str = DEFAULT_NAMESPACE,
    since: datetime | None = None,
    bucket_seconds: int | None = DEFAULT_BUCKET_S,
) -> list[OperationCount]:
    bucket_s = DEFAULT_BUCKET_S if bucket_seconds is None else bucket_seconds
    counts = await info.context.services.ops.counts(
        namespace,
        since_ms=optional_ms(since) or 0,
        bucket_ms=bucket_s * 1000,
        caller=info.context.principal,
    )
    return [OperationCount.from_domain(count) for count in counts]


async def resolve_namespaces(info: Info) -> list[str]:
    return await info.context.services.ops.readable_namespaces(caller=info.context.principal)


@strawberry.type
class OpsQuery:
    namespaces = strawberry.field(
        resolver=resolve_namespaces,
        description="The namespaces written to that the caller may read, sorted: every "
        "one for an unrestricted key (or open local mode), else those the key names.",
    )
    operational_events = strawberry.field(
        resolver=resolve_operational_events,
        description="The namespace's operational events, newest first, optionally of one "
        "node and op and since a time; `first` is 1 to 500. A namespace keeps its newest "
        "TG_OPS_EVENTS_KEEP events.",
    )
    operation_counts = strawberry.field(
        resolver=resolve_operation_counts,
        description="How many operations of each node, op and status fell in each "
        "`bucketSeconds` (1 s to 31 days) since `since`: what changed, and when.",
    )
