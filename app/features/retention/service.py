"""Usage tracking, forgetting, restoring and pinning: what agents use stays, what they
ignore or leave fades and is forgotten (soft-deleted, then purged after its TTL)."""

from __future__ import annotations

from collections import Counter

import structlog

from thoughtgraph.domain import validation as check
from thoughtgraph.domain.changes import Actor
from thoughtgraph.domain.errors import ThoughtNotFoundError
from thoughtgraph.domain.models import Thought, ThoughtState
from thoughtgraph.domain.units import DAY_MS
from thoughtgraph.features.access import (
    Action,
    Principal,
    check_access,
    require_change,
    seen,
    viewer_of,
)
from thoughtgraph.features.repositories import Repositories
from thoughtgraph.features.write_behind import Held, WriteBehind
from thoughtgraph.ports.clock import Clock
from thoughtgraph.settings import Settings

log = structlog.get_logger(__name__)
FORGET_BATCH = 500


class AccessRecorder(WriteBehind[Counter[str]]):
    """Counts what callers were given (lastAccessedAt, accessCount) without a write per
    read: ids are buffered and written once a second, one statement per namespace."""

    not_recorded = "usage.not_recorded"  # usage counts are best effort; never fail a read

    def __init__(
        self,
        repos: Repositories,
        clock: Clock,
        interval_s: float = 1.0,
        held: Held | None = None,
    ) -> None:
        super().__init__(interval_s, held)
        self._repos = repos
        self._clock = clock

    def record(self, namespace: str, ids: list[str]) -> None:
        if ids:
            self._batch(namespace).update(ids)

    def _empty(self) -> Counter[str]:
        return Counter()

    def _merge(self, older: Counter[str], newer: Counter[str]) -> Counter[str]:
        return older + newer

    async def _write(self, namespace: str, batch: Counter[str]) -> None:
        await self._repos.retention.touch(namespace, batch, self._clock.now_ms())


class RetentionService:
    def __init__(self, repos: Repositories, settings: Settings, clock: Clock) -> None:
        self._repos = repos
        self._settings = settings
        self._clock = clock

    async def _thought(
        self, namespace: str, thought_id: str, caller: Principal | None = None
    ) -> Thought:
        """The thought a caller changes: missing when it may not see it, FORBIDDEN when
        it may not change it (a system thought and no admin key)."""
        found = seen(
            await self._repos.thoughts.get_many(namespace, [thought_id]), viewer_of(caller)
        )
        if thought_id not in found:
            raise ThoughtNotFoundError([thought_id])
        require_change([found[thought_id]], caller)
        return found[thought_id]

    async def forget(
        self, namespace: str, thought_id: str, actor: Actor, *, caller: Principal | None = None
    ) -> Thought:
        """Soft-delete: out of every read until restored; purged after purge_after_days."""
        check_access(caller, Action.WRITE, namespace)
        check.require_namespace(namespace)
        tid = check.require_thought_id("id", thought_id)
        await self._thought(namespace, tid, caller)
        now = self._clock.now_ms()
        await self._repos.retention.set_state(
            namespace,
            tid,
            ThoughtState.SOFT_DELETED,
            purge_at_ms=now + self._settings.purge_after_days * DAY_MS,
            actor=actor,
            at_ms=now,
        )
        return await self._thought(namespace, tid)

    async def restore(
        self, namespace: str, thought_id: str, actor: Actor, *, caller: Principal | None = None
    ) -> Thought:
        """Bring a forgotten thought back (a purged one is gone: THOUGHT_NOT_FOUND)."""
        check_access(caller, Action.WRITE, namespace)
        check.require_namespace(namespace)
        tid = check.require_thought_id("id", thought_id)
        await self._thought(namespace, tid, caller)
        await self._repos.retention.set_state(
            namespace,
            tid,
            ThoughtState.ACTIVE,
            purge_at_ms=None,
            actor=actor,
            at_ms=self._clock.now_ms(),
        )
        return await self._thought(namespace, tid)

    async def pin(
        self,
        namespace: str,
        thought_id: str,
        pinned: bool,
        actor: Actor,
        *,
        caller: Principal | None = None,
    ) -> Thought:
        check_access(caller, Action.WRITE, namespace)
        check.require_namespace(namespace)
        tid = check.require_thought_id("id", thought_id)
        await self._thought(namespace, tid, caller)
        await self._repos.retention.pin(
            namespace, tid, pinned, actor=actor, at_ms=self._clock.now_ms()
        )
        return await self._thought(namespace, tid)

    async def forget_due(self, namespace: str, *, dry_run: bool = False) -> int:
        """Soft-delete what was not accessed for forget_after_days, is below the
        importance threshold or superseded (outdated, whatever its importance), and is
        not pinned."""
        now = self._clock.now_ms()
        cutoff = now - self._settings.forget_after_days * DAY_MS
        if dry_run:
            return await self._repos.retention.count_forget_due(
                namespace,
                accessed_before_ms=cutoff,
                below_importance=self._settings.forget_below_importance,
            )
        total = 0
        while True:
            forgotten = await self._repos.retention.forget_due(
                namespace,
                accessed_before_ms=cutoff,
                below_importance=self._settings.forget_below_importance,
                purge_at_ms=now + self._settings.purge_after_days * DAY_MS,
                actor=Actor.maintenance("forgetting"),
                at_ms=now,
                limit=FORGET_BATCH,
            )
            total += forgotten
            if forgotten < FORGET_BATCH:
                return total

    async def purge_due(self, namespace: str) -> int:
        total = 0
        while True:
            purged = await self._repos.retention.purge_due(
                namespace,
                actor=Actor.maintenance("purge"),
                at_ms=self._clock.now_ms(),
                limit=FORGET_BATCH,
            )
            total += purged
            if purged < FORGET_BATCH:
                return total
