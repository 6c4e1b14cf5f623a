"""Contradictions and judged pairs (cypher/contradiction, cypher/pair)."""

from __future__ import annotations

from collections.abc import Sequence

from thoughtgraph.domain.changes import Actor, ChangeKind, SubjectKind
from thoughtgraph.domain.judgement import Verdict
from thoughtgraph.domain.knowledge import Contradiction, ContradictionStatus, Resolution
from thoughtgraph.store.executor import Executor
from thoughtgraph.store.model_rows import contradiction_from_row
from thoughtgraph.store.params import change_params


class ContradictionRepository:
    def __init__(self, executor: Executor) -> None:
        self._x = executor

    async def record(
        self,
        namespace: str,
        contradiction_id: str,
        older_id: str,
        newer_id: str,
        verdict: Verdict,
        *,
        at_ms: int,
    ) -> bool:
        """False when the pair was flagged before (or a thought is gone)."""
        rows = await self._x.write(
            "contradiction.record",
            {
                "namespace": namespace,
                "id": contradiction_id,
                "aId": older_id,
                "bId": newer_id,
                "relation": verdict.relation.value,
                "detector": verdict.detector,
                "confidence": verdict.confidence,
                "explanation": verdict.explanation,
                **change_params(
                    ChangeKind.CONTRADICTION_DETECTED,
                    SubjectKind.CONTRADICTION,
                    contradiction_id,
                    actor=Actor.maintenance(verdict.detector),
                    at_ms=at_ms,
                    related_ids=[older_id, newer_id],
                ),
            },
            namespace=namespace,
        )
        return bool(rows)

    async def by_status(
        self, namespace: str, status: ContradictionStatus | None, limit: int
    ) -> list[Contradiction]:
        rows = await self._x.read(
            "contradiction.list",
            {"namespace": namespace, "status": status.value if status else None, "limit": limit},
            namespace=namespace,
        )
        return [contradiction_from_row(r) for r in rows]

    async def get_many(self, namespace: str, ids: Sequence[str]) -> dict[str, Contradiction]:
        if not ids:
            return {}
        rows = await self._x.read(
            "contradiction.get_many",
            {"namespace": namespace, "ids": list(ids)},
            namespace=namespace,
        )
        return {r["id"]: contradiction_from_row(r) for r in rows}

    async def resolve(
        self,
        contradiction: Contradiction,
        *,
        resolution: Resolution,
        winner_id: str | None,
        reason: str,
        reason_embedding: Sequence[float],
        note: str | None,
        actor: Actor,
        pair_id: str,
        merged_thought_id: str | None,
        at_ms: int,
    ) -> bool:
        """False when it is no longer open."""
        namespace = contradiction.namespace
        rows = await self._x.write(
            "contradiction.resolve",
            {
                "namespace": namespace,
                "id": contradiction.id,
                "resolution": resolution.value,
                "winnerId": winner_id,
                "reason": reason,
                "reasonEmbedding": list(reason_embedding),
                "note": note,
                "resolvedBy": actor.name,
                "pairId": pair_id,
                "mergedThoughtId": merged_thought_id,
                **change_params(
                    ChangeKind.CONTRADICTION_RESOLVED,
                    SubjectKind.CONTRADICTION,
                    contradiction.id,
                    actor=actor,
                    at_ms=at_ms,
                    related_ids=[
                        tid
                        for tid in (
                            contradiction.thought_a_id,
                            contradiction.thought_b_id,
                            merged_thought_id,
                        )
                        if tid
                    ],
                ),
            },
            namespace=namespace,
        )
        return bool(rows)

    # --- judged pairs ------------------------------------------------------------------
    async def judged_since(
        self, namespace: str, pair_ids: Sequence[str], since_ms: int
    ) -> set[str]:
        if not pair_ids:
            return set()
        rows = await self._x.read(
            "pair.judged",
            {"namespace": namespace, "ids": list(pair_ids), "since": since_ms},
            namespace=namespace,
        )
        return {r["id"] for r in rows}

    async def remember_judged(
        self, namespace: str, verdicts: Sequence[tuple[str, str]], at_ms: int
    ) -> None:
        """(pair id, relation) pairs: not judged again for a while."""
        if not verdicts:
            return
        await self._x.write(
            "pair.record",
            {
                "namespace": namespace,
                "rows": [{"id": pid, "relation": rel} for pid, rel in verdicts],
                "at": at_ms,
            },
            namespace=namespace,
        )
