"""The checkpoint as GraphQL shows it."""

from __future__ import annotations

from datetime import datetime

import strawberry

from thoughtgraph.domain import checkpoints, models


@strawberry.type(
    description=(
        "A saved state of a thread (JSON data), your key's user's alone: another user's"
        " checkpoints read as not found."
    )
)
class Checkpoint:
    id: strawberry.ID = strawberry.field(description="Unique within its thread.")
    thread_id: str
    parent_id: strawberry.ID | None = strawberry.field(
        description="The checkpoint of the same thread it follows, if any."
    )
    data: str = strawberry.field(description="A JSON object, as it was saved.")
    metadata: str | None = strawberry.field(description="A small JSON object, as saved.")
    size_bytes: int = strawberry.field(description="Of data, UTF-8 encoded.")
    created_at: datetime

    @classmethod
    def from_domain(cls, found: checkpoints.Checkpoint) -> Checkpoint:
        return cls(
            id=strawberry.ID(found.id),
            thread_id=found.thread_id,
            parent_id=strawberry.ID(found.parent_id) if found.parent_id else None,
            data=found.data,
            metadata=found.metadata,
            size_bytes=found.size_bytes,
            created_at=models.ms_to_datetime(found.created_at_ms),
        )
