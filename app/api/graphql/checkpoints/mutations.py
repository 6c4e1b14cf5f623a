"""Saving a checkpoint in a thread."""

from __future__ import annotations

import strawberry

from thoughtgraph.api.graphql.checkpoints.types import Checkpoint
from thoughtgraph.api.graphql.request_context import Info
from thoughtgraph.domain.models import DEFAULT_NAMESPACE


async def resolve_save_checkpoint(
    info: Info,
    thread_id: str,
    data: str,
    namespace: str = DEFAULT_NAMESPACE,
    id: strawberry.ID | None = None,
    parent_id: strawberry.ID | None = None,
    metadata: str | None = None,
) -> Checkpoint:
    saved = await info.context.services.checkpoints.save(
        namespace,
        thread_id,
        data,
        checkpoint_id=id,
        parent_id=parent_id,
        metadata=metadata,
        caller=info.context.principal,
    )
    return Checkpoint.from_domain(saved)


@strawberry.type
class CheckpointMutation:
    save_checkpoint = strawberry.mutation(
        resolver=resolve_save_checkpoint,
        description=(
            "Save a checkpoint in your thread: `data` a JSON object up to"
            " TG_CHECKPOINT_MAX_BYTES (480,000 bytes by default), `metadata` a JSON object"
            " up to 16 KB"
            " (VALIDATION_ERROR otherwise, nothing written); `id` yours (a new one when"
            " null); `parentId` a checkpoint of the same thread (NOT_FOUND otherwise)."
            " Saving an id saved already writes nothing and returns it as first saved."
        ),
    )
