"""Reading topics: the most recently updated ones, or one by id."""

from __future__ import annotations

import strawberry

from app.domain.models import DEFAULT_NAMESPACE
from app.graphql.auth import CanRead
from app.graphql.context import Info
from app.graphql.topics.types import Topic

PAGE_SIZE = 20  # an explicit null means this default


async def resolve_topics(
    info: Info, namespace: str = DEFAULT_NAMESPACE, first: int | None = PAGE_SIZE
) -> list[Topic]:
    size = PAGE_SIZE if first is None else first
    topics = await info.context.services.topics.recent(namespace, size)
    return [Topic.from_domain(topic) for topic in topics]


async def resolve_topic(
    info: Info, id: strawberry.ID, namespace: str = DEFAULT_NAMESPACE
) -> Topic | None:
    found = await info.context.services.topics.get(namespace, id)
    if found is None:
        return None
    info.context.loaders.topics.prime((namespace, found.id), found)
    return Topic.from_domain(found)


@strawberry.type
class TopicQuery:
    topics = strawberry.field(
        permission_classes=[CanRead],
        resolver=resolve_topics,
        description="Topics, most recently updated first; `first` is 1 to 100.",
    )
    topic = strawberry.field(
        permission_classes=[CanRead],
        resolver=resolve_topic,
        description="One topic, or null when the namespace has no such id.",
    )
