"""Asking for insights about people: the insights job, queued for a namespace."""

from __future__ import annotations

import strawberry

from thoughtgraph.api.graphql.request_context import Info
from thoughtgraph.domain.models import DEFAULT_NAMESPACE


async def resolve_request_insights(info: Info, namespace: str = DEFAULT_NAMESPACE) -> bool:
    return await info.context.services.insights.request(namespace, caller=info.context.principal)


@strawberry.type
class InsightMutation:
    request_insights = strawberry.mutation(
        resolver=resolve_request_insights,
        description=(
            "Queue the insights job for the namespace (needs WRITE): with a language model"
            " configured, a worker writes 1-3 insights (kind INSIGHT, category"
            " relationship_dynamic) about each person with new activity and no insight in"
            " the last 24 h; read them with thoughts(filter: {kind: INSIGHT}) or search."
            " True once queued; false where no worker takes jobs (nothing runs);"
            " QUEUE_UNAVAILABLE when the broker does not take it."
        ),
    )
