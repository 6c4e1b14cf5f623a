"""The store's vector spaces as GraphQL types."""

from __future__ import annotations

from datetime import datetime

import strawberry

from thoughtgraph.api.graphql.thoughts.types import optional_datetime
from thoughtgraph.domain import vector_space as domain


@strawberry.type(description="One set of vectors: the embedder that made them, in a slot.")
class VectorSpace:
    slot: int = strawberry.field(description="0 or 1: which set of properties and indexes.")
    embedder: str = strawberry.field(description="The embedder, e.g. local:all-MiniLM-L6-v2.")
    dimension: int

    @classmethod
    def from_domain(cls, space: domain.VectorSpace) -> VectorSpace:
        return cls(slot=space.slot, embedder=space.embedder, dimension=space.dimension)


@strawberry.type(
    description="The store's vector spaces: the active one every request uses, the one a "
    "re-embed is filling, and one a switch retired until it is dropped."
)
class VectorSpaces:
    active: VectorSpace
    next: VectorSpace | None = strawberry.field(description="Being filled by a re-embed.")
    retired_slot: int | None = strawberry.field(
        description="Switched away from; its vectors and indexes are being dropped."
    )
    started_at: datetime | None = strawberry.field(description="When the re-embed began.")
    switched_at: datetime | None = strawberry.field(description="When the last switch was.")

    @classmethod
    def from_domain(cls, spaces: domain.VectorSpaces) -> VectorSpaces:
        return cls(
            active=VectorSpace.from_domain(spaces.active),
            next=VectorSpace.from_domain(spaces.next) if spaces.next else None,
            retired_slot=spaces.retired_slot,
            started_at=optional_datetime(spaces.started_at),
            switched_at=optional_datetime(spaces.switched_at),
        )
