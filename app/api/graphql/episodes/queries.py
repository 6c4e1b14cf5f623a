"""Reading episodes: the newest, or one by id."""

from __future__ import annotations

import strawberry

from thoughtgraph.api.graphql.episodes.types import Episode
from thoughtgraph.api.graphql.request_context import Info
from thoughtgraph.domain import validation as check
from thoughtgraph.domain.models import DEFAULT_NAMESPACE

PAGE_SIZE = check.DEFAULT_PAGE_SIZE  # shown in the schema; an explicit null means it too


async def resolve_episodes(
    info: Info, namespace: str = DEFAULT_NAMESPACE, first: int | None = PAGE_SIZE
) -> list[Episode]:
    episodes = await info.context.services.episodes.recent(
        namespace, first, caller=info.context.principal
    )
    return [Episode.from_domain(episode) for episode in episodes]


async def resolve_episode(
    info: Info, id: strawberry.ID, namespace: str = DEFAULT_NAMESPACE
) -> Episode | None:
    found = await info.context.services.episodes.get(namespace, id, caller=info.context.principal)
    return Episode.from_domain(found) if found is not None else None


@strawberry.type
class EpisodeQuery:
    episodes = strawberry.field(
        resolver=resolve_episodes,
        description="Episodes, newest first; `first` is 1 to 100.",
    )
    episode = strawberry.field(
        resolver=resolve_episode,
        description="One episode, or null when the namespace has no such id.",
    )
