"""Output types of the change log."""

from __future__ import annotations

from datetime import datetime

import strawberry

from thoughtgraph.api.graphql.enums import ChangeKind, SubjectKind
from thoughtgraph.domain import models


@strawberry.type(description="One write recorded in a namespace's change log.")
class ChangeEvent:
    id: strawberry.ID
    revision: int
    kind: ChangeKind
    subject_kind: SubjectKind = strawberry.field(description="The kind of node changed.")
    subject_id: strawberry.ID = strawberry.field(description="The id of the node changed.")
    thought_id: strawberry.ID | None = strawberry.field(
        description="The subject's id when the subject is a thought."
    )
    source_ids: list[strawberry.ID] = strawberry.field(
        description="Other nodes the change involved (sources, the superseding thought...)."
    )
    actor_id: str
    actor_name: str
    key_id: str | None = strawberry.field(
        description="The API key that made the change; null in open local mode."
    )
    at: datetime

    @classmethod
    def from_domain(cls, event: models.ChangeEvent) -> ChangeEvent:
        return cls(
            id=strawberry.ID(event.id),
            revision=event.revision,
            kind=event.kind,
            subject_kind=event.subject_kind,
            subject_id=strawberry.ID(event.subject_id),
            thought_id=strawberry.ID(event.thought_id) if event.thought_id else None,
            source_ids=[strawberry.ID(sid) for sid in event.source_ids],
            actor_id=event.actor_id,
            actor_name=event.actor_name,
            key_id=event.actor_key_id,
            at=models.ms_to_datetime(event.at_ms),
        )


@strawberry.type(description="Events after a revision, oldest first, and the current revision.")
class ChangesPage:
    revision: int = strawberry.field(
        description=(
            "The namespace's current revision, read just before the events (so an event"
            " written meanwhile may carry a higher one)."
        )
    )
    events: list[ChangeEvent]
