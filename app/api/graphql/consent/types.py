"""The consent request as GraphQL shows it, and its enums. It imports nothing of the
thought types: a contribution's payload (thoughts.types) names it."""

from __future__ import annotations

from datetime import datetime

import strawberry

from thoughtgraph.domain import consent, models
from thoughtgraph.domain.consent import ConsentStatus, Sensitivity

strawberry.enum(ConsentStatus, description="Where a consent request is: decided or not, and how.")
strawberry.enum(
    Sensitivity,
    description=(
        "SENSITIVE: only the person decides. BENIGN: two independent signals proposing the"
        " same value apply it (the person may decide too)."
    ),
)


def _datetime(epoch_ms: int | None) -> datetime | None:
    return models.ms_to_datetime(epoch_ms) if epoch_ms is not None else None


@strawberry.type(
    description=(
        "A proposed change to a field about a person (their name, city, ...): nothing"
        " changes until the person approves it with their own key (or, for a BENIGN"
        " field, enough independent signals agree). Seen by the person and the proposer."
    )
)
class ConsentRequest:
    id: strawberry.ID
    namespace: str
    person: str = strawberry.field(description="The user it is about: their key decides.")
    field: str = strawberry.field(description="The field (a thought category), e.g. city.")
    sensitivity: Sensitivity
    status: ConsentStatus
    value: str = strawberry.field(description="The proposed value, as the thought says it.")
    thought_id: strawberry.ID = strawberry.field(
        description="The thought holding the value: written (or made current) once applied."
    )
    replaces_ids: list[strawberry.ID] = strawberry.field(
        description="The current values it supersedes once applied."
    )
    evidence: str | None
    proposed_by_id: str = strawberry.field(description="The agent that proposed it first.")
    proposed_by_name: str
    signals: int = strawberry.field(
        description="Independent signals (agent and session) that proposed this value."
    )
    created_at: datetime
    expires_at: datetime = strawberry.field(
        description="Undecided by then, it expires and nothing changes."
    )
    decided_at: datetime | None
    decided_by: str | None = strawberry.field(
        description="The person, `corroboration`, `expiry`, or `local` (open local mode)."
    )
    note: str | None

    @classmethod
    def from_domain(cls, found: consent.ConsentRequest) -> ConsentRequest:
        return cls(
            id=strawberry.ID(found.id),
            namespace=found.namespace,
            person=found.person,
            field=found.field,
            sensitivity=found.sensitivity,
            status=found.status,
            value=found.value,
            thought_id=strawberry.ID(found.thought_id),
            replaces_ids=[strawberry.ID(i) for i in found.replaces_ids],
            evidence=found.evidence,
            proposed_by_id=found.proposed_by_id,
            proposed_by_name=found.proposed_by_name,
            signals=found.signal_count,
            created_at=models.ms_to_datetime(found.created_at_ms),
            expires_at=models.ms_to_datetime(found.expires_at_ms),
            decided_at=_datetime(found.decided_at_ms),
            decided_by=found.decided_by,
            note=found.note,
        )
