"""Saving a checkpoint in a thread, deleting a thread's checkpoints."""

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


async def resolve_delete_checkpoint_thread(
    info: Info,
    thread_id: str,
    namespace: str = DEFAULT_NAMESPACE,
    prefix: bool = False,
) -> int:
    return await info.context.services.checkpoints.delete_thread(
        namespace, thread_id, prefix=prefix, caller=info.context.principal
    )


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
    delete_checkpoint_thread = strawberry.mutation(
        resolver=resolve_delete_checkpoint_thread,
        description=(
            "Delete your checkpoints in the thread (with `prefix`: in every thread of yours"
            " whose id starts with `threadId`), for good, with one `CHECKPOINTS_DELETED`"
            " change event; returns how many were deleted (0 and nothing written when"
            " there were none). Other users' checkpoints of the same thread stay."
        ),
    )
