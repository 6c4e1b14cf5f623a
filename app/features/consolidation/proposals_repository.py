"""Merge proposals across users' private memories (cypher/proposal)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from thoughtgraph.domain.changes import Actor, ChangeKind, SubjectKind
from thoughtgraph.domain.models import Thought
from thoughtgraph.domain.proposals import (
    MergeProposal,
    PartDecision,
    ProposalPart,
    ProposalStatus,
)
from thoughtgraph.store.executor import Executor, vector_list
from thoughtgraph.store.params import change_params
from thoughtgraph.store.rows import optional_int, thought_from_row


def proposal_from_row(row: Mapping[str, Any]) -> MergeProposal:
    parts = zip(row["thoughtIds"], row["ownerIds"], row["decisions"], strict=True)
    return MergeProposal(
        id=row["id"],
        namespace=row["namespace"],
        status=ProposalStatus(row["status"]),
        parts=tuple(
            ProposalPart(thought_id=t, owner_id=o, decision=PartDecision(d)) for t, o, d in parts
        ),
        similarity=float(row["similarity"]),
        created_at_ms=int(row["createdAt"]),
        decided_at_ms=optional_int(row.get("decidedAt")),
        merged_thought_id=row.get("mergedThoughtId"),
    )


class ProposalRepository:
    def __init__(self, executor: Executor) -> None:
        self._x = executor

    async def record(self, proposal: MergeProposal, *, actor: Actor) -> bool:
        """False when it exists (proposed before) or a thought is gone."""
        ids = proposal.thought_ids
        rows = await self._x.write(
            "proposal.record",
            {
                "namespace": proposal.namespace,
                "id": proposal.id,
                "thoughtIds": ids,
                "ownerIds": [p.owner_id for p in proposal.parts],
                "decisions": [p.decision.value for p in proposal.parts],
                "similarity": proposal.similarity,
                **change_params(
                    ChangeKind.MERGE_PROPOSED,
                    SubjectKind.MERGE_PROPOSAL,
                    proposal.id,
                    actor=actor,
                    at_ms=proposal.created_at_ms,
                    related_ids=ids,
                ),
            },
            namespace=proposal.namespace,
        )
        return bool(rows)

    async def decide(
        self,
        proposal: MergeProposal,
        owner_id: str,
        decision: PartDecision,
        *,
        actor: Actor,
        at_ms: int,
    ) -> MergeProposal | None:
        """The proposal after ``owner_id``'s decision; None when it is no longer open."""
        rows = await self._x.write(
            "proposal.decide",
            {
                "namespace": proposal.namespace,
                "id": proposal.id,
                "ownerId": owner_id,
                "decision": decision.value,
                **change_params(
                    ChangeKind.MERGE_DECIDED,
                    SubjectKind.MERGE_PROPOSAL,
                    proposal.id,
                    actor=actor,
                    at_ms=at_ms,
                    related_ids=[
                        p.thought_id
                        for p in proposal.parts
                        if p.owner_id == owner_id and p.thought_id is not None
                    ],
                    event_id=f"{proposal.id}:decided:{owner_id}:{at_ms}",
                ),
            },
            namespace=proposal.namespace,
        )
        return proposal_from_row(rows[0]) if rows else None

    async def merged(self, namespace: str, proposal_id: str, merged_thought_id: str) -> None:
        await self._x.write(
            "proposal.merged",
            {"namespace": namespace, "id": proposal_id, "mergedThoughtId": merged_thought_id},
            namespace=namespace,
        )

    async def private_of(
        self, namespace: str, owner_id: str, limit: int
    ) -> list[tuple[Thought, list[float]]]:
        """A user's current private thoughts and their embeddings, newest first."""
        rows = await self._x.read(
            "proposal.private_of",
            {"namespace": namespace, "ownerId": owner_id, "limit": limit},
            namespace=namespace,
        )
        return [(thought_from_row(r), vector_list(r["embedding"])) for r in rows]

    async def get_many(self, namespace: str, ids: Sequence[str]) -> dict[str, MergeProposal]:
        if not ids:
            return {}
        rows = await self._x.read(
            "proposal.get_many", {"namespace": namespace, "ids": list(ids)}, namespace=namespace
        )
        return {r["id"]: proposal_from_row(r) for r in rows}

    async def of_owner(
        self, namespace: str, owner_id: str | None, status: ProposalStatus | None, limit: int
    ) -> list[MergeProposal]:
        rows = await self._x.read(
            "proposal.list",
            {
                "namespace": namespace,
                "ownerId": owner_id,
                "status": status.value if status else None,
                "limit": limit,
            },
            namespace=namespace,
        )
        return [proposal_from_row(r) for r in rows]
