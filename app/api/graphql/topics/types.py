"""Output type of topics."""

from __future__ import annotations

from datetime import datetime

import strawberry

from thoughtgraph.api.graphql.request_context import Info
from thoughtgraph.api.graphql.thoughts.types import Thought, optional_datetime
from thoughtgraph.domain import knowledge, models

MEMBERS_FIRST = 20  # an explicit null means this default; cost.py sizes `thoughts` by it


async def resolve_topic_thoughts(
    root: Topic, info: Info, first: int | None = MEMBERS_FIRST
) -> list[Thought]:
    size = MEMBERS_FIRST if first is None else first
    members = await info.context.services.topics.members(root.namespace, str(root.id), size)
    for member in members:
        info.context.loaders.thoughts.prime((root.namespace, member.id), member)
    return [Thought.from_domain(member) for member in members]


@strawberry.type(description="Thoughts close in meaning, gathered under a name and a summary.")
class Topic:
    id: strawberry.ID
    namespace: str
    name: str
    summary: str | None = strawberry.field(
        description="Written once enough new thoughts gathered; null until then."
    )
    thought_count: int
    unsummarised_count: int = strawberry.field(
        description="Thoughts that joined since the summary was written."
    )
    created_at: datetime
    updated_at: datetime
    summarised_at: datetime | None
    thoughts = strawberry.field(
        resolver=resolve_topic_thoughts,
        description=(
            "Its current thoughts (not forgotten or superseded), newest first; `first` is 1 to 100."
        ),
    )

    @classmethod
    def from_domain(cls, topic: knowledge.Topic) -> Topic:
        return cls(
            id=strawberry.ID(topic.id),
            namespace=topic.namespace,
            name=topic.name,
            summary=topic.summary,
            thought_count=topic.thought_count,
            unsummarised_count=topic.unsummarised_count,
            created_at=models.ms_to_datetime(topic.created_at_ms),
            updated_at=models.ms_to_datetime(topic.updated_at_ms),
            summarised_at=optional_datetime(topic.summarised_at_ms),
        )
