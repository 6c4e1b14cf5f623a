"""Loading a checkpoint (the newest, or one by id) and listing a thread's history."""

from __future__ import annotations

import strawberry

from thoughtgraph.api.graphql.checkpoints.types import Checkpoint
from thoughtgraph.api.graphql.request_context import Info
from thoughtgraph.domain.checkpoints import DEFAULT_LIST
from thoughtgraph.domain.models import DEFAULT_NAMESPACE


async def resolve_checkpoint(
    info: Info,
    thread_id: str,
    namespace: str = DEFAULT_NAMESPACE,
    id: strawberry.ID | None = None,
) -> Checkpoint | None:
    found = await info.context.services.checkpoints.load(
        namespace, thread_id, id, caller=info.context.principal
    )
    return Checkpoint.from_domain(found) if found is not None else None


async def resolve_checkpoints(
    info: Info,
    thread_id: str,
    namespace: str = DEFAULT_NAMESPACE,
    first: int | None = DEFAULT_LIST,
    before: strawberry.ID | None = None,
) -> list[Checkpoint]:
    found = await info.context.services.checkpoints.history(
        namespace, thread_id, first=first, before=before, caller=info.context.principal
    )
    return [Checkpoint.from_domain(c) for c in found]


@strawberry.type
class CheckpointQuery:
    checkpoint = strawberry.field(
        resolver=resolve_checkpoint,
        description=(
            "Your checkpoint `id` in the thread, or its newest when `id` is null; null"
            " when there is none."
        ),
    )
    checkpoints = strawberry.field(
        resolver=resolve_checkpoints,
        description=(
            "Your checkpoints in the thread, newest first: `first` (1 to 100) of those"
            " saved before the checkpoint `before` (NOT_FOUND when the thread has no such"
            " checkpoint)."
        ),
    )
