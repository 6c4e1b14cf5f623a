"""Checkpoints: save a thread's state (JSON), load the newest or one by id, list the
thread's history newest first, delete a thread's checkpoints. Each user's own: another
user's read as not found, and a deletion never reaches them."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel, Field

from thoughtgraph.api.mcp.tools.env import READ_ONLY, WRITES, Namespace, ToolEnv
from thoughtgraph.api.mcp.tools.shapes import Shape, iso
from thoughtgraph.domain.checkpoints import Checkpoint
from thoughtgraph.domain.models import DEFAULT_NAMESPACE

ThreadId = Annotated[str, Field(description="The thread (yours: per user).")]


class CheckpointOut(Shape):
    id: str
    thread_id: str
    parent_id: str | None
    data: str  # a JSON object, as saved
    metadata: str | None
    size_bytes: int
    created_at: str | None

    @classmethod
    def of(cls, checkpoint: Checkpoint) -> CheckpointOut:
        return cls.copy_of(checkpoint, created_at=iso(checkpoint.created_at_ms))


class LoadedOut(BaseModel):
    checkpoint: CheckpointOut | None  # None: the thread has none (or not that one)


class CheckpointsOut(BaseModel):
    checkpoints: list[CheckpointOut]


class ThreadDeletedOut(BaseModel):
    thread_id: str  # the thread, or with prefix the start of the threads' ids
    prefix: bool
    deleted: int  # how many checkpoints were deleted (0: there were none, nothing written)

    def as_text(self) -> str:
        threads = f"threads starting with {self.thread_id}" if self.prefix else self.thread_id
        noun = "checkpoint" if self.deleted == 1 else "checkpoints"
        return f"deleted {self.deleted} {noun} of {threads}"


def register(server: MCPServer[Any], env: ToolEnv) -> None:
    async def save_checkpoint(
        ctx: Context[Any, Any],
        thread_id: ThreadId,
        data: Annotated[
            str, Field(description="A JSON object (480,000 bytes at most by default).")
        ],
        checkpoint_id: Annotated[
            str | None, Field(description="Its id in the thread (a new one when absent).")
        ] = None,
        parent_id: Annotated[
            str | None, Field(description="The checkpoint of the same thread it follows.")
        ] = None,
        metadata: Annotated[
            str | None, Field(description="A small JSON object (16 KB at most).")
        ] = None,
        namespace: Namespace = DEFAULT_NAMESPACE,
    ) -> CheckpointOut:
        """Save a checkpoint of your thread. Saving an id saved already writes nothing and
        returns it as first saved; an unknown parent is NOT_FOUND; data that is not a
        JSON object or too large is VALIDATION_ERROR."""
        saved = await env.services.checkpoints.save(
            namespace,
            thread_id,
            data,
            checkpoint_id=checkpoint_id,
            parent_id=parent_id,
            metadata=metadata,
            caller=env.caller(ctx),
        )
        return CheckpointOut.of(saved)

    async def load_checkpoint(
        ctx: Context[Any, Any],
        thread_id: ThreadId,
        checkpoint_id: Annotated[
            str | None, Field(description="Which one (the newest when absent).")
        ] = None,
        namespace: Namespace = DEFAULT_NAMESPACE,
    ) -> LoadedOut:
        """Your checkpoint of the thread: the newest, or the one with this id."""
        found = await env.services.checkpoints.load(
            namespace, thread_id, checkpoint_id, caller=env.caller(ctx)
        )
        return LoadedOut(checkpoint=CheckpointOut.of(found) if found else None)

    async def list_checkpoints(
        ctx: Context[Any, Any],
        thread_id: ThreadId,
        first: Annotated[int | None, Field(description="1 to 100 (20).")] = None,
        before: Annotated[
            str | None, Field(description="Only those saved before this checkpoint.")
        ] = None,
        namespace: Namespace = DEFAULT_NAMESPACE,
    ) -> CheckpointsOut:
        """Your checkpoints of the thread, newest first."""
        found = await env.services.checkpoints.history(
            namespace, thread_id, first=first, before=before, caller=env.caller(ctx)
        )
        return CheckpointsOut(checkpoints=[CheckpointOut.of(c) for c in found])

    async def delete_checkpoint_thread(
        ctx: Context[Any, Any],
        thread_id: ThreadId,
        prefix: Annotated[
            bool, Field(description="Delete every thread of yours whose id starts with it.")
        ] = False,
        namespace: Namespace = DEFAULT_NAMESPACE,
    ) -> ThreadDeletedOut:
        """Delete your checkpoints of the thread for good (with prefix: of every thread of
        yours whose id starts with thread_id); returns how many were deleted (0 and nothing
        written when there were none). Other users' checkpoints of the same thread stay. A
        bad thread id is VALIDATION_ERROR."""
        deleted = await env.services.checkpoints.delete_thread(
            namespace, thread_id, prefix=prefix, caller=env.caller(ctx)
        )
        return ThreadDeletedOut(thread_id=thread_id, prefix=prefix, deleted=deleted)

    server.add_tool(
        save_checkpoint, annotations=WRITES.model_copy(update={"idempotent_hint": True})
    )
    server.add_tool(load_checkpoint, annotations=READ_ONLY)
    server.add_tool(list_checkpoints, annotations=READ_ONLY)
    # Destructive (gone for good), and idempotent: deleting again deletes nothing more.
    server.add_tool(
        delete_checkpoint_thread,
        annotations=WRITES.model_copy(update={"destructive_hint": True, "idempotent_hint": True}),
    )
