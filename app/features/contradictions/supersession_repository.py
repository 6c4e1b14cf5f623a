"""SUPERSEDES edges: a newer thought retiring an older one (cypher/supersession)."""

from __future__ import annotations

from collections.abc import Sequence

from thoughtgraph.domain.changes import Actor, ChangeKind, SubjectKind
from thoughtgraph.store.executor import Executor
from thoughtgraph.store.params import change_params


class SupersessionRepository:
    def __init__(self, executor: Executor) -> None:
        self._x = executor

    async def supersede(
        self,
        namespace: str,
        newer_id: str,
        older_id: str,
        *,
        reason: str,
        reason_embedding: Sequence[float],
        detector: str,
        confidence: float,
        actor: Actor,
        at_ms: int,
    ) -> bool:
        """False when nothing was written (missing, same, or decided already)."""
        rows = await self._x.write(
            "supersession.supersede",
            {
                "namespace": namespace,
                "newerId": newer_id,
                "olderId": older_id,
                "reason": reason,
                "reasonEmbedding": list(reason_embedding),
                "detector": detector,
                "confidence": confidence,
                **change_params(
                    ChangeKind.SUPERSEDED,
                    SubjectKind.THOUGHT,
                    older_id,
                    actor=actor,
                    at_ms=at_ms,
                    related_ids=[newer_id],
                ),
            },
            namespace=namespace,
        )
        return bool(rows)

    async def superseders(self, namespace: str, ids: Sequence[str]) -> dict[str, str]:
        """For each id, the newest thought that SUPERSEDES it."""
        if not ids:
            return {}
        rows = await self._x.read(
            "supersession.superseders",
            {"namespace": namespace, "ids": list(ids)},
            namespace=namespace,
        )
        found: dict[str, str] = {}
        for row in rows:  # newest first
            found.setdefault(row["thoughtId"], row["supersederId"])
        return found
