"""The person's decision on a consent request: approve (the change is applied) or reject
(nothing changes)."""

from __future__ import annotations

import strawberry

from thoughtgraph.api.graphql.consent.types import ConsentRequest
from thoughtgraph.api.graphql.request_context import Info
from thoughtgraph.domain.consent import ConsentDecision
from thoughtgraph.domain.models import DEFAULT_NAMESPACE


async def _decide(
    info: Info, namespace: str, id: str, decision: ConsentDecision, note: str | None
) -> ConsentRequest:
    decided = await info.context.services.consent.decide(
        namespace, id, decision, note=note, caller=info.context.principal
    )
    return ConsentRequest.from_domain(decided)


async def resolve_approve_consent(
    info: Info, id: strawberry.ID, namespace: str = DEFAULT_NAMESPACE, note: str | None = None
) -> ConsentRequest:
    return await _decide(info, namespace, id, ConsentDecision.APPROVE, note)


async def resolve_reject_consent(
    info: Info, id: strawberry.ID, namespace: str = DEFAULT_NAMESPACE, note: str | None = None
) -> ConsentRequest:
    return await _decide(info, namespace, id, ConsentDecision.REJECT, note)


@strawberry.type
class ConsentMutation:
    approve_consent = strawberry.mutation(
        resolver=resolve_approve_consent,
        description=(
            "Approve a change to a field about you (your key's user only: FORBIDDEN"
            " otherwise): the new value is written and supersedes the old. Approving again"
            " returns it as it is; INVALID_STATE when it was rejected or expired."
        ),
    )
    reject_consent = strawberry.mutation(
        resolver=resolve_reject_consent,
        description=(
            "Reject a change to a field about you (your key's user only): nothing changes."
            " Rejecting again returns it as it is; INVALID_STATE when it was approved,"
            " applied or expired."
        ),
    )
