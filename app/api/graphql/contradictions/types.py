"""Output type of contradictions."""

from __future__ import annotations

from datetime import datetime

import strawberry

from thoughtgraph.api.graphql.enums import ContradictionStatus, Resolution
from thoughtgraph.api.graphql.request_context import Info
from thoughtgraph.api.graphql.thoughts.types import Thought, load_thought, optional_datetime
from thoughtgraph.domain import knowledge, models


async def resolve_thought_a(root: Contradiction, info: Info) -> Thought | None:
    return await load_thought(info, root.namespace, str(root.thought_a_id))


async def resolve_thought_b(root: Contradiction, info: Info) -> Thought | None:
    return await load_thought(info, root.namespace, str(root.thought_b_id))


async def resolve_merged_thought(root: Contradiction, info: Info) -> Thought | None:
    if root.merged_thought_id is None:
        return None
    return await load_thought(info, root.namespace, str(root.merged_thought_id))


@strawberry.type(description="Two thoughts that cannot both be current: a is older, b newer.")
class Contradiction:
    id: strawberry.ID
    namespace: str
    status: ContradictionStatus
    relation: str = strawberry.field(
        description="What the judge saw: `update` (b replaces a) or `conflict`."
    )
    detected_at: datetime
    detector: str = strawberry.field(description="`rules`, or the model that judged the pair.")
    confidence: float
    explanation: str
    thought_a_id: strawberry.ID
    thought_b_id: strawberry.ID
    thought_a = strawberry.field(resolver=resolve_thought_a, description="The older thought.")
    thought_b = strawberry.field(resolver=resolve_thought_b, description="The newer thought.")
    resolution: Resolution | None
    note: str | None
    resolved_by: str | None
    resolved_at: datetime | None
    merged_thought_id: strawberry.ID | None
    merged_thought = strawberry.field(
        resolver=resolve_merged_thought,
        description="The consolidation written when it was resolved as MERGED.",
    )

    @classmethod
    def from_domain(cls, found: knowledge.Contradiction) -> Contradiction:
        return cls(
            id=strawberry.ID(found.id),
            namespace=found.namespace,
            status=found.status,
            relation=found.relation,
            detected_at=models.ms_to_datetime(found.detected_at_ms),
            detector=found.detector,
            confidence=found.confidence,
            explanation=found.explanation,
            thought_a_id=strawberry.ID(found.thought_a_id),
            thought_b_id=strawberry.ID(found.thought_b_id),
            resolution=found.resolution,
            note=found.note,
            resolved_by=found.resolved_by,
            resolved_at=optional_datetime(found.resolved_at_ms),
            merged_thought_id=(
                strawberry.ID(found.merged_thought_id) if found.merged_thought_id else None
            ),
        )
