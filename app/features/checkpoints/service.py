"""Checkpoints as clients see them: save one in a thread, load the newest or one by id,
list a thread's history newest first, delete a thread. Each user sees only their own:
another user's checkpoint reads as not found, and a deletion never reaches it.

A checkpoint's user is the caller's key's user; a key acting for no user, open local mode
and the service itself save and read as the user ``-`` (``NO_USER``).
"""

from __future__ import annotations

import json
import uuid

from thoughtgraph.domain import validation as check
from thoughtgraph.domain.checkpoints import (
    DEFAULT_LIST,
    DELETE_BATCH,
    MAX_LIST,
    MAX_METADATA_BYTES,
    NO_USER,
    Checkpoint,
    checkpoint_key,
    within_bytes,
)
from thoughtgraph.domain.errors import InvalidInputError, NotFoundError
from thoughtgraph.features.access import LOCAL_ACTOR, Action, Principal, actor_of, check_access
from thoughtgraph.features.checkpoints.repository import CheckpointRepository
from thoughtgraph.ports.clock import Clock


def user_of(caller: Principal | None) -> str:
    """Whose checkpoints a caller saves and reads: its key's user, else ``-``."""
    return caller.user if caller is not None and caller.user else NO_USER


def json_object(field: str, text: str, max_bytes: int) -> int:
    """The size in bytes of ``text``, a JSON object of at most ``max_bytes`` bytes (UTF-8);
    VALIDATION_ERROR otherwise."""
    size = len(text.encode("utf-8", errors="surrogatepass"))
    if size > max_bytes:
        raise InvalidInputError(
            f"{field} is {size} bytes; the limit is {max_bytes}", field=field, limit=max_bytes
        )
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise InvalidInputError(f"{field} is not JSON: {exc}", field=field) from None
    if not isinstance(value, dict):
        raise InvalidInputError(f"{field} must be a JSON object", field=field)
    return size


class CheckpointService:
    def __init__(
        self,
        repo: CheckpointRepository,
        clock: Clock,
        *,
        max_bytes: int,
        delete_batch: int = DELETE_BATCH,
    ) -> None:
        self._repo = repo
        self._clock = clock
        self.max_bytes = max_bytes
        self._delete_batch = delete_batch

    async def save(
        self,
        namespace: str,
        thread_id: str,
        data: str,
        *,
        checkpoint_id: str | None = None,
        parent_id: str | None = None,
        metadata: str | None = None,
        caller: Principal | None = None,
    ) -> Checkpoint:
        """Save a checkpoint (the id given, or a new one) in the caller's thread. Saving an
        id saved already writes nothing and returns the checkpoint as first saved. A
        parent must be a checkpoint of the same thread: NOT_FOUND otherwise. Data must be
        a JSON object of at most ``max_bytes`` bytes, metadata a JSON object of at most
        16 KB: VALIDATION_ERROR otherwise, and nothing is written."""
        check_access(caller, Action.WRITE, namespace)
        check.require_namespace(namespace)
        thread = check.require_identifier("threadId", thread_id)
        cid = check.optional_identifier("id", checkpoint_id) or str(uuid.uuid4())
        parent = check.optional_identifier("parentId", parent_id)
        if parent == cid:
            raise InvalidInputError("a checkpoint cannot be its own parent", field="parentId")
        size = json_object("data", data, self.max_bytes)
        if metadata is not None:
            json_object("metadata", metadata, MAX_METADATA_BYTES)
        user = user_of(caller)
        key = checkpoint_key(namespace, user, thread, cid)
        parent_key = checkpoint_key(namespace, user, thread, parent) if parent else None
        checkpoint = Checkpoint(
            id=cid,
            namespace=namespace,
            user=user,
            thread_id=thread,
            parent_id=parent,
            data=data,
            metadata=metadata,
            size_bytes=size,
            created_at_ms=self._clock.now_ms(),
            revision=0,
        )
        found = await self._repo.owners(namespace, [k for k in (key, parent_key) if k])
        if key in found:  # saved before: a retry writes nothing
            return (await self._repo.get_many(namespace, [key]))[key]
        if parent is not None and parent_key not in found:
            raise NotFoundError("checkpoint", parent)  # no such parent in the thread
        actor = LOCAL_ACTOR if caller is None else actor_of(caller)
        saved = await self._repo.save(checkpoint, key=key, parent_key=parent_key, actor=actor)
        if saved is not None:
            return saved
        # Saved by a concurrent retry between the read and the write.
        return (await self._repo.get_many(namespace, [key]))[key]

    async def load(
        self,
        namespace: str,
        thread_id: str,
        checkpoint_id: str | None = None,
        *,
        caller: Principal | None = None,
    ) -> Checkpoint | None:
        """The caller's checkpoint ``checkpoint_id`` in the thread, or its newest (None:
        the thread has none, or not that one)."""
        check_access(caller, Action.READ, namespace)
        check.require_namespace(namespace)
        thread = check.require_identifier("threadId", thread_id)
        cid = check.optional_identifier("id", checkpoint_id)
        user = user_of(caller)
        if cid is None:
            newest = await self._repo.listing(
                namespace, user, thread, before_revision=None, limit=1
            )
            return newest[0] if newest else None
        key = checkpoint_key(namespace, user, thread, cid)
        return (await self._repo.get_many(namespace, [key])).get(key)

    async def history(
        self,
        namespace: str,
        thread_id: str,
        *,
        first: int | None = DEFAULT_LIST,
        before: str | None = None,
        caller: Principal | None = None,
    ) -> list[Checkpoint]:
        """The caller's checkpoints in the thread, newest first, those saved before the
        checkpoint ``before`` (NOT_FOUND when the thread has no such checkpoint); ``first``
        is 1 to 100, and a page holds at most MAX_LIST_BYTES of data (shorter pages are
        not the end: page on until one is empty)."""
        check_access(caller, Action.READ, namespace)
        check.require_namespace(namespace)
        thread = check.require_identifier("threadId", thread_id)
        limit = check.page_size("first", first, DEFAULT_LIST, MAX_LIST)
        cursor = check.optional_identifier("before", before)
        user = user_of(caller)
        before_revision = None
        if cursor is not None:
            key = checkpoint_key(namespace, user, thread, cursor)
            anchor = (await self._repo.get_many(namespace, [key])).get(key)
            if anchor is None:
                raise NotFoundError("checkpoint", cursor)
            before_revision = anchor.revision
        found = await self._repo.listing(
            namespace, user, thread, before_revision=before_revision, limit=limit
        )
        return within_bytes(found)

    async def delete_thread(
        self,
        namespace: str,
        thread_id: str,
        *,
        prefix: bool = False,
        caller: Principal | None = None,
    ) -> int:
        """Delete the caller's checkpoints in the thread (with ``prefix``: in every thread
        of theirs whose id starts with ``thread_id``), oldest first, a batch per write, each
        with one ``checkpoints_deleted`` event; how many were deleted. None there: 0, and
        nothing is written. Another user's checkpoints of the same thread stay. A bad thread
        id is VALIDATION_ERROR."""
        check_access(caller, Action.WRITE, namespace)
        check.require_namespace(namespace)
        thread = check.require_identifier("threadId", thread_id)
        actor = LOCAL_ACTOR if caller is None else actor_of(caller)
        deleted = 0
        while True:
            batch = await self._repo.delete_thread(
                namespace,
                user_of(caller),
                thread,
                prefix=prefix,
                limit=self._delete_batch,
                actor=actor,
                at_ms=self._clock.now_ms(),
            )
            deleted += batch
            if batch < self._delete_batch:
                return deleted
