"""Usage, forgetting, restoring, purging and pinning thoughts (cypher/retention)."""

from __future__ import annotations

from collections.abc import Mapping

from thoughtgraph.domain.changes import Actor, ChangeKind, SubjectKind
from thoughtgraph.domain.models import ThoughtState
from thoughtgraph.store.executor import Executor
from thoughtgraph.store.params import change_params


class RetentionRepository:
    def __init__(self, executor: Executor) -> None:
        self._x = executor

    async def touch(self, namespace: str, counts: Mapping[str, int], at_ms: int) -> int:
        """Record that these thoughts were returned to callers, so many times each."""
        if not counts:
            return 0
        rows = await self._x.write(
            "retention.touch",
            {
                "namespace": namespace,
                "rows": [{"id": tid, "count": n} for tid, n in sorted(counts.items())],
                "at": at_ms,
            },
            namespace=namespace,
        )
        return int(rows[0]["touched"]) if rows else 0

    async def forget_due(
        self,
        namespace: str,
        *,
        accessed_before_ms: int,
        below_importance: int,
        purge_at_ms: int,
        actor: Actor,
        at_ms: int,
        limit: int,
    ) -> int:
        rows = await self._x.write(
            "retention.forget_due",
            {
                "namespace": namespace,
                "accessedBefore": accessed_before_ms,
                "belowImportance": below_importance,
                "purgeAt": purge_at_ms,
                "at": at_ms,
                "limit": limit,
                "actorId": actor.id,
                "actorName": actor.name,
            },
            namespace=namespace,
        )
        return int(rows[0]["forgotten"]) if rows else 0

    async def count_forget_due(
        self, namespace: str, *, accessed_before_ms: int, below_importance: int
    ) -> int:
        rows = await self._x.read(
            "retention.forget_count",
            {
                "namespace": namespace,
                "accessedBefore": accessed_before_ms,
                "belowImportance": below_importance,
            },
            namespace=namespace,
        )
        return int(rows[0]["due"]) if rows else 0

    async def purge_due(self, namespace: str, *, actor: Actor, at_ms: int, limit: int) -> int:
        rows = await self._x.write(
            "retention.purge_due",
            {
                "namespace": namespace,
                "at": at_ms,
                "limit": limit,
                "actorId": actor.id,
                "actorName": actor.name,
            },
            namespace=namespace,
        )
        return int(rows[0]["purged"]) if rows else 0

    async def set_state(
        self,
        namespace: str,
        thought_id: str,
        state: ThoughtState,
        *,
        purge_at_ms: int | None,
        actor: Actor,
        at_ms: int,
    ) -> bool:
        """False when the thought is missing or in that state already."""
        kind = (
            ChangeKind.SOFT_DELETED if state is ThoughtState.SOFT_DELETED else ChangeKind.RESTORED
        )
        rows = await self._x.write(
            "retention.set_state",
            {
                "namespace": namespace,
                "id": thought_id,
                "state": state.value,
                "purgeAt": purge_at_ms,
                **change_params(kind, SubjectKind.THOUGHT, thought_id, actor=actor, at_ms=at_ms),
            },
            namespace=namespace,
        )
        return bool(rows)

    async def pin(
        self, namespace: str, thought_id: str, pinned: bool, *, actor: Actor, at_ms: int
    ) -> bool:
        kind = ChangeKind.PINNED if pinned else ChangeKind.UNPINNED
        rows = await self._x.write(
            "retention.pin",
            {
                "namespace": namespace,
                "id": thought_id,
                "pinned": pinned,
                **change_params(kind, SubjectKind.THOUGHT, thought_id, actor=actor, at_ms=at_ms),
            },
            namespace=namespace,
        )
        return bool(rows)
