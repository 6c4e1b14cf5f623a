"""Listing consent requests: those about the caller's user and those it proposed."""

from __future__ import annotations

import strawberry

from thoughtgraph.api.graphql.consent.types import ConsentRequest
from thoughtgraph.api.graphql.request_context import Info
from thoughtgraph.domain import validation as check
from thoughtgraph.domain.consent import ConsentStatus
from thoughtgraph.domain.models import DEFAULT_NAMESPACE


async def resolve_consent_requests(
    info: Info,
    namespace: str = DEFAULT_NAMESPACE,
    status: ConsentStatus | None = None,
    first: int | None = check.DEFAULT_PAGE_SIZE,
) -> list[ConsentRequest]:
    found = await info.context.services.consent.requests(
        namespace, status, first, caller=info.context.principal
    )
    return [ConsentRequest.from_domain(request) for request in found]


@strawberry.type
class ConsentQuery:
    consent_requests = strawberry.field(
        resolver=resolve_consent_requests,
        description=(
            "Consent requests about your key's user or proposed through your user's keys"
            " (all of them in open local mode; none for a key acting for no user), newest"
            " first; `first` is 1 to 100."
        ),
    )
