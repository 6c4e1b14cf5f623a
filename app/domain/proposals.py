"""Merging memories across users: a proposal to make near-duplicate private thoughts of
several users one shared consolidation, decided by each owner for their own part.

A proposal shows each owner only their own parts (another user's private thought stays
private until its owner accepts). Once every part is decided, the accepted parts (two
or more) become a shared consolidation of them; otherwise the proposal is declined and
nothing changes.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
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

    def outcome(self) -> ProposalStatus:
        """What the decisions so far amount to."""
        if any(p.decision is PartDecision.PENDING for p in self.parts):
            return ProposalStatus.OPEN
        accepted = [p for p in self.parts if p.decision is PartDecision.ACCEPTED]
        return ProposalStatus.ACCEPTED if len(accepted) >= 2 else ProposalStatus.DECLINED

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


def cross_owner_clusters(
    pairs: Sequence[tuple[str, str]], owners: dict[str, str]
) -> list[list[str]]:
    """Groups of thoughts linked by near-duplicate pairs of different owners (a pair of one
    owner is that owner's own consolidation, not a merge across users), each sorted."""
    parent: dict[str, str] = {}

    def root(x: str) -> str:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in pairs:
        if owners[a] != owners[b]:
            parent[root(a)] = root(b)
    groups: dict[str, list[str]] = {}
    for x in parent:
        groups.setdefault(root(x), []).append(x)
    return sorted(sorted(g) for g in groups.values() if len({owners[t] for t in g}) >= 2)
