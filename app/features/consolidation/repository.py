"""Consolidation candidates, merges of near-duplicates and their undoing
(cypher/consolidation)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from thoughtgraph.domain.changes import Actor, ChangeKind, SubjectKind
from thoughtgraph.domain.models import Thought
from thoughtgraph.store.executor import Executor
from thoughtgraph.store.params import change_params


@dataclass(frozen=True)
class CandidateWindow:
    """Which thoughts a consolidation run or a scheduled scan looks at: written before
    ``until_ms``, and new or used since ``since_ms``, at least ``min_importance``, or
    retrieved at least ``min_access_count`` times (the consolidation_candidate macro;
    None: that reason does not count)."""

    since_ms: int
    until_ms: int
    min_importance: int | None = None
    min_access_count: int | None = None

    def params(self, namespace: str) -> dict[str, Any]:
        return {
            "namespace": namespace,
            "since": self.since_ms,
            "until": self.until_ms,
            "minImportance": self.min_importance,
            "minAccessCount": self.min_access_count,
        }


class MergeRepository:
    def __init__(self, executor: Executor) -> None:
        self._x = executor

    async def candidate_ids(
        self, namespace: str, window: CandidateWindow, after: tuple[int, str] | None, limit: int
    ) -> list[tuple[str, int]]:
        """One page of the window's current thoughts in (createdAt, id) order after the
        cursor ``after``, as (id, createdAt)."""
        rows = await self._x.read(
            "consolidation.candidate_ids",
            {
                **window.params(namespace),
                "afterCreatedAt": after[0] if after else -1,
                "afterId": after[1] if after else "",
                "limit": limit,
            },
            namespace=namespace,
        )
        return [(r["id"], int(r["createdAt"])) for r in rows]

    async def count_candidates(self, namespace: str, window: CandidateWindow) -> tuple[int, int]:
        """(candidates in the window, current thoughts in the namespace)."""
        rows = await self._x.read(
            "consolidation.candidate_count", window.params(namespace), namespace=namespace
        )
        row = rows[0] if rows else {}
        return int(row.get("candidates") or 0), int(row.get("current") or 0)

    async def merge(
        self,
        namespace: str,
        merged: Thought,
        embedding: Sequence[float],
        *,
        reason: str,
        reason_embedding: Sequence[float],
        actor: Actor,
        run_id: str | None,
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
            "scope": merged.scope.value,
            "ownerId": merged.owner_id,
            "reason": reason,
            "reasonEmbedding": list(reason_embedding),
            "runId": run_id,
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

    async def merged_by_runs(
        self, namespace: str, run_ids: Sequence[str], limit: int
    ) -> dict[str, list[str]]:
        """For each run that merged anything: its merged thoughts' ids, oldest first."""
        rows = await self._x.read(
            "consolidation.merged_by_runs",
            {"namespace": namespace, "runIds": list(run_ids), "limit": limit},
            namespace=namespace,
        )
        return {r["runId"]: list(r["ids"]) for r in rows}

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
