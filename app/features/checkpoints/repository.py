"""Checkpoints and their history in a thread (cypher/checkpoints)."""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from thoughtgraph.domain.changes import Actor, ChangeKind, SubjectKind
from thoughtgraph.domain.checkpoints import Checkpoint, checkpoint_thread_key
from thoughtgraph.store.executor import Executor
from thoughtgraph.store.params import change_params


def checkpoint_from_row(row: Mapping[str, Any]) -> Checkpoint:
    return Checkpoint(
        id=row["checkpointId"],
        namespace=row["namespace"],
        user=row["user"],
        thread_id=row["threadId"],
        parent_id=row.get("parentId"),
        data=row["data"],
        metadata=row.get("metadata"),
        size_bytes=int(row["sizeBytes"]),
        created_at_ms=int(row["createdAt"]),
        revision=int(row["revision"]),
    )


class CheckpointRepository:
    def __init__(self, executor: Executor) -> None:
        self._x = executor

    async def save(
        self, checkpoint: Checkpoint, *, key: str, parent_key: str | None, actor: Actor
    ) -> Checkpoint | None:
        """The checkpoint as saved; None when it was saved already (a retry): nothing
        was written."""
        rows = await self._x.write(
            "checkpoints.save",
            {
                "namespace": checkpoint.namespace,
                "id": key,
                "checkpointId": checkpoint.id,
                "user": checkpoint.user,
                "threadId": checkpoint.thread_id,
                "parentId": checkpoint.parent_id,
                "data": checkpoint.data,
                "metadata": checkpoint.metadata,
                "sizeBytes": checkpoint.size_bytes,
                **change_params(
                    ChangeKind.CHECKPOINT_SAVED,
                    SubjectKind.CHECKPOINT,
                    key,
                    actor=actor,
                    at_ms=checkpoint.created_at_ms,
                    related_ids=[parent_key] if parent_key else [],
                    # Unique even when the checkpoint is saved again after its thread was
                    # deleted (a retry writes no event: the checkpoint exists).
                    event_id=f"{key}:{ChangeKind.CHECKPOINT_SAVED.value}:{uuid.uuid4().hex}",
                ),
            },
            namespace=checkpoint.namespace,
        )
        return checkpoint_from_row(rows[0]) if rows else None

    async def get_many(self, namespace: str, keys: Sequence[str]) -> dict[str, Checkpoint]:
        """Checkpoints by node key (those found)."""
        if not keys:
            return {}
        rows = await self._x.read(
            "checkpoints.get_many",
            {"namespace": namespace, "ids": sorted(set(keys))},
            namespace=namespace,
        )
        return {row["id"]: checkpoint_from_row(row) for row in rows}

    async def owners(self, namespace: str, keys: Sequence[str]) -> dict[str, str]:
        """Each found checkpoint's user, by node key (its data is not read)."""
        if not keys:
            return {}
        rows = await self._x.read(
            "checkpoints.owners",
            {"namespace": namespace, "ids": sorted(set(keys))},
            namespace=namespace,
        )
        return {row["id"]: row["user"] for row in rows}

    async def listing(
        self,
        namespace: str,
        user: str,
        thread_id: str,
        *,
        before_revision: int | None,
        limit: int,
    ) -> list[Checkpoint]:
        """A user's checkpoints in a thread, newest first."""
        rows = await self._x.read(
            "checkpoints.list",
            {
                "namespace": namespace,
                "user": user,
                "threadId": thread_id,
                "beforeRevision": before_revision,
                "limit": limit,
            },
            namespace=namespace,
        )
        return [checkpoint_from_row(row) for row in rows]

    async def delete_thread(
        self,
        namespace: str,
        user: str,
        thread_id: str,
        *,
        prefix: bool,
        limit: int,
        actor: Actor,
        at_ms: int,
    ) -> int:
        """Deletes up to ``limit`` of a user's checkpoints in a thread (``prefix``: in every
        thread whose id starts with ``thread_id``), oldest first, with one event; how many.
        None found: nothing written."""
        subject = checkpoint_thread_key(namespace, user, thread_id, prefix=prefix)
        rows = await self._x.write(
            "checkpoints.delete_thread",
            {
                "namespace": namespace,
                "user": user,
                "threadId": thread_id,
                "prefix": prefix,
                "limit": limit,
                **change_params(
                    ChangeKind.CHECKPOINTS_DELETED,
                    SubjectKind.CHECKPOINT,
                    subject,
                    actor=actor,
                    at_ms=at_ms,
                    event_id=f"{subject}:{ChangeKind.CHECKPOINTS_DELETED.value}:{uuid.uuid4().hex}",
                ),
            },
            namespace=namespace,
        )
        return int(rows[0]["deleted"]) if rows else 0
