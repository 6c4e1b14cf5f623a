"""Merging memories across users: a proposal to make near-duplicate private thoughts of
several users one shared consolidation, decided by each owner for their own part.

A proposal shows each owner only their own parts (another user's private thought stays
private until its owner accepts). Once every part is decided, the accepted parts (two
or more) become a shared consolidation of them; otherwise the proposal is declined and
nothing changes.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum

from pydantic import BaseModel, ConfigDict

from thoughtgraph.domain.knowledge import stable_id
from thoughtgraph.domain.scopes import Viewer


class ProposalStatus(StrEnum):
    OPEN = "open"  # some part is undecided
    ACCEPTED = "accepted"  # two or more parts accepted: merged into a shared thought
    DECLINED = "declined"  # fewer than two accepted: nothing merged


class PartDecision(StrEnum):
    PENDING = "pending"
    ACCEPTED = "accepted"
    DECLINED = "declined"


class ProposalPart(BaseModel):
    model_config = ConfigDict(frozen=True)

    thought_id: str | None  # None: another user's part, as a viewer is shown it
    owner_id: str
    decision: PartDecision = PartDecision.PENDING


class MergeProposal(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: str
    namespace: str
    status: ProposalStatus
    parts: tuple[ProposalPart, ...]
    similarity: float  # the lowest similarity of a pair that joined the proposal
    created_at_ms: int
    decided_at_ms: int | None = None
    merged_thought_id: str | None = None

    @property
    def thought_ids(self) -> list[str]:
        """The ids of the parts shown (every part of a stored proposal)."""
        return [p.thought_id for p in self.parts if p.thought_id is not None]

    @property
    def owners(self) -> frozenset[str]:
        return frozenset(part.owner_id for part in self.parts)

    def seen_by(self, viewer: Viewer) -> bool:
        """Only the users it involves (and trusted reads) know a proposal exists."""
        return viewer.trusted or viewer.user_id in self.owners

    def as_seen_by(self, viewer: Viewer) -> MergeProposal:
        """The proposal as a viewer is shown it: another user's parts without their
        thought (the owner and decision only); every part for a trusted read."""
        if viewer.trusted:
            return self
        parts = tuple(
            p if p.owner_id == viewer.user_id else p.model_copy(update={"thought_id": None})
            for p in self.parts
        )
        return self.model_copy(update={"parts": parts})

    @property
    def accepted_ids(self) -> list[str]:
        return [
            p.thought_id
            for p in self.parts
            if p.decision is PartDecision.ACCEPTED and p.thought_id is not None
        ]


def proposal_id(namespace: str, thought_ids: Iterable[str]) -> str:
    """From its thoughts: proposing the same merge again finds the proposal."""
    return stable_id("proposal", namespace, *sorted(thought_ids))
