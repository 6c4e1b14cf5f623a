"""The per-namespace change log: a thought's events, and everything after a revision."""

from __future__ import annotations

from thoughtgraph.domain import validation as check
from thoughtgraph.domain.errors import ThoughtNotFoundError
from thoughtgraph.domain.models import ChangeEvent
from thoughtgraph.features.access import (
    Action,
    Principal,
    check_access,
    events_seen,
    seen,
    viewer_of,
)
from thoughtgraph.features.repositories import Repositories


class HistoryService:
    def __init__(self, repos: Repositories) -> None:
        self._repos = repos

    async def history(
        self, namespace: str, thought_id: str, *, caller: Principal | None = None
    ) -> list[ChangeEvent]:
        """Creation of the thought and every refinement or consolidation of it, in order
        (the first ``MAX_HISTORY``)."""
        check_access(caller, Action.READ, namespace)
        check.require_namespace(namespace)
        tid = check.require_thought_id("thoughtId", thought_id)
        viewer = viewer_of(caller)
        if not viewer.trusted and not seen(
            await self._repos.thoughts.get_many(namespace, [tid]), viewer
        ):
            raise ThoughtNotFoundError([tid])  # another user's private thought
        events = await self._repos.changes.history(namespace, tid, check.MAX_HISTORY)
        events = await events_seen(self._repos, namespace, events, viewer)
        # Every thought's creation event concerns it, so no events means no such thought:
        # one query answers both questions.
        if not events:
            raise ThoughtNotFoundError([tid])
        return events

    async def changes(
        self,
        namespace: str,
        after_revision: int | None = 0,
        limit: int | None = None,
        *,
        caller: Principal | None = None,
    ) -> list[ChangeEvent]:
        check_access(caller, Action.READ, namespace)
        check.require_namespace(namespace)
        after_revision = 0 if after_revision is None else after_revision
        check.require_int_range("afterRevision", after_revision, 0, 2**53)
        limit = check.page_size("limit", limit, check.DEFAULT_CHANGES, check.MAX_CHANGES)
        events = await self._repos.changes.since(namespace, after_revision, limit)
        return await events_seen(self._repos, namespace, events, viewer_of(caller))

    async def revision(self, namespace: str, *, caller: Principal | None = None) -> int:
        check_access(caller, Action.READ, namespace)
        check.require_namespace(namespace)
        return await self._repos.changes.revision(namespace)
