"""Reading topics: the most recently updated ones, or one by id."""

from __future__ import annotations

import strawberry

from thoughtgraph.api.graphql.request_context import Info
from thoughtgraph.api.graphql.topics.types import Topic
from thoughtgraph.domain import validation as check
from thoughtgraph.domain.models import DEFAULT_NAMESPACE

PAGE_SIZE = check.DEFAULT_PAGE_SIZE  # shown in the schema; an explicit null means it too


async def resolve_topics(
    info: Info, namespace: str = DEFAULT_NAMESPACE, first: int | None = PAGE_SIZE
) -> list[Topic]:
    topics = await info.context.services.topics.recent(
        namespace, first, caller=info.context.principal
    )
    return [Topic.from_domain(topic) for topic in topics]


async def resolve_topic(
    info: Info, id: strawberry.ID, namespace: str = DEFAULT_NAMESPACE
) -> Topic | None:
    found = await info.context.services.topics.get(namespace, id, caller=info.context.principal)
    if found is None:
        return None
    info.context.loaders.topics.prime((namespace, found.id), found)
    return Topic.from_domain(found)


@strawberry.type
class TopicQuery:
    topics = strawberry.field(
        resolver=resolve_topics,
        description="Topics, most recently updated first; `first` is 1 to 100.",
    )
    topic = strawberry.field(
        resolver=resolve_topic,
        description="One topic, or null when the namespace has no such id.",
    )
