"""A thought's life after it is written: superseded by a newer one, forgotten and
restored, pinned. Each returns the thought as it is afterwards."""

from __future__ import annotations

import strawberry

from thoughtgraph.api.graphql.request_context import Info
from thoughtgraph.api.graphql.thoughts.types import Thought
from thoughtgraph.domain.models import DEFAULT_NAMESPACE
from thoughtgraph.features.access import actor_of


async def resolve_supersede(
    info: Info,
    newer_id: strawberry.ID,
    older_id: strawberry.ID,
    reason: str,
    namespace: str = DEFAULT_NAMESPACE,
) -> Thought:
    older = await info.context.services.supersession.supersede(
        namespace,
        newer_id,
        older_id,
        reason=reason,
        actor=actor_of(info.context.principal),
        caller=info.context.principal,
    )
    return Thought.from_domain(older)


async def resolve_forget(
    info: Info, id: strawberry.ID, namespace: str = DEFAULT_NAMESPACE
) -> Thought:
    forgotten = await info.context.services.retention.forget(
        namespace, id, actor_of(info.context.principal), caller=info.context.principal
    )
    return Thought.from_domain(forgotten)


async def resolve_restore(
    info: Info, id: strawberry.ID, namespace: str = DEFAULT_NAMESPACE
) -> Thought:
    restored = await info.context.services.retention.restore(
        namespace, id, actor_of(info.context.principal), caller=info.context.principal
    )
    return Thought.from_domain(restored)


async def resolve_pin(
    info: Info, id: strawberry.ID, namespace: str = DEFAULT_NAMESPACE, pinned: bool | None = True
) -> Thought:
    changed = await info.context.services.retention.pin(
        namespace,
        id,
        pinned is not False,
        actor_of(info.context.principal),
        caller=info.context.principal,
    )
    return Thought.from_domain(changed)


@strawberry.type
class ThoughtLifecycleMutation:
    supersede = strawberry.mutation(
        resolver=resolve_supersede,
        description=(
            "Record that newerId supersedes olderId (kept, marked, ranked lower, left out"
            " of currentOnly reads); returns the older thought. Reversing an earlier"
            " decision is INVALID_STATE."
        ),
    )
    forget = strawberry.mutation(
        resolver=resolve_forget,
        description=("Forget a thought: left out of every read until restored, purged at purgeAt."),
    )
    restore = strawberry.mutation(
        resolver=resolve_restore,
        description="Bring a forgotten thought back (a purged one is THOUGHT_NOT_FOUND).",
    )
    pin = strawberry.mutation(
        resolver=resolve_pin,
        description="Pin a thought (never forgotten), or unpin it with pinned: false.",
    )
