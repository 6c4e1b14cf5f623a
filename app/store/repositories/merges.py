"""Consolidation candidates, merges of near-duplicates and their undoing
(cypher/consolidation)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from app.domain.changes import Actor, ChangeKind, SubjectKind
from app.domain.models import Thought
from app.store.params import change_params
from app.store.repositories.executor import Executor, vector_list
from app.store.rows import thought_from_row


def _candidate_params(
    namespace: str,
    *,
    since_ms: int,
    until_ms: int,
    min_importance: int,
    min_access_count: int,
    after: tuple[int, str] | None,
    limit: int,
) -> dict[str, Any]:
    """The parameters of consolidation/candidates and candidate_ids."""
    return {
        "namespace": namespace,
        "since": since_ms,
        "until": until_ms,
        "minImportance": min_importance,
        "minAccessCount": min_access_count,
        "afterCreatedAt": after[0] if after else -1,
        "afterId": after[1] if after else "",
        "limit": limit,
    }


class MergeRepository:
    def __init__(self, executor: Executor) -> None:
        self._x = executor

    async def candidates(
        self,
        namespace: str,
        *,
        since_ms: int,
        until_ms: int,
        min_importance: int,
        min_access_count: int,
        after: tuple[int, str] | None,
        limit: int,
    ) -> list[tuple[Thought, list[float]]]:
        """One page of what a consolidation run looks at, in (createdAt, id) order."""
        rows = await self._x.read(
            "consolidation.candidates",
            _candidate_params(
                namespace,
                since_ms=since_ms,
                until_ms=until_ms,
                min_importance=min_importance,
                min_access_count=min_access_count,
                after=after,
                limit=limit,
            ),
            namespace=namespace,
        )
        return [(thought_from_row(r), vector_list(r["embedding"])) for r in rows]

    async def candidate_ids(
        self,
        namespace: str,
        *,
        since_ms: int,
        until_ms: int,
        min_importance: int,
        min_access_count: int,
        after: tuple[int, str] | None,
        limit: int,
    ) -> list[tuple[str, int]]:
        """``candidates`` as (id, createdAt): for a run that holds the thoughts."""
        rows = await self._x.read(
            "consolidation.candidate_ids",
            _candidate_params(
                namespace,
                since_ms=since_ms,
                until_ms=until_ms,
                min_importance=min_importance,
                min_access_count=min_access_count,
                after=after,
                limit=limit,
            ),
            namespace=namespace,
        )
        return [(r["id"], int(r["createdAt"])) for r in rows]

    async def merge(
        self,
        namespace: str,
        merged: Thought,
        embedding: Sequence[float],
        *,
        reason: str,
        reason_embedding: Sequence[float],
        actor: Actor,
    ) -> int | None:
        """The merged thought's revision, or None when nothing was written (a source is
        gone or no longer current, or the merge exists: a retry)."""
        params: dict[str, Any] = {
            "namespace": namespace,
            "id": merged.id,
            "content": merged.content,
            "tags": list(merged.tags),
            "pheromoneWeight": merged.pheromone_weight,
            "sourceIds": list(merged.source_ids),
            "embedding": list(embedding),
            "kind": merged.kind.value,
            "salience": merged.salience,
            "importance": merged.importance,
            "pinned": merged.pinned,
            "reason": reason,
            "reasonEmbedding": list(reason_embedding),
            **change_params(
                ChangeKind.MERGED,
                SubjectKind.THOUGHT,
                merged.id,
                actor=actor,
                at_ms=merged.created_at_ms,
                related_ids=merged.source_ids,
            ),
        }
        rows = await self._x.write("consolidation.merge", params, namespace=namespace)
        return int(rows[0]["revision"]) if rows else None

    async def unmerge(
        self, namespace: str, merged_id: str, *, purge_at_ms: int, actor: Actor, at_ms: int
    ) -> list[str] | None:
        """The restored source ids, or None when it is not an active merge."""
        rows = await self._x.write(
            "consolidation.unmerge",
            {
                "namespace": namespace,
                "id": merged_id,
                "purgeAt": purge_at_ms,
                **change_params(
                    ChangeKind.UNMERGED, SubjectKind.THOUGHT, merged_id, actor=actor, at_ms=at_ms
                ),
            },
            namespace=namespace,
        )
        return list(rows[0]["restored"]) if rows else None
