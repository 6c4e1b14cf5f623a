"""Merging memories across users (app/domain/proposals.py): proposing shared
consolidations of near-duplicate private thoughts, and each owner's decision on theirs."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from thoughtgraph.domain import validation as check
from thoughtgraph.domain.changes import Actor
from thoughtgraph.domain.errors import ForbiddenError, InvalidInputError, NotFoundError
from thoughtgraph.domain.models import Thought
from thoughtgraph.domain.proposals import (
    MergeProposal,
    PartDecision,
    ProposalPart,
    ProposalStatus,
    proposal_id,
)
from thoughtgraph.domain.rules import connected_groups
from thoughtgraph.domain.scopes import Scope, Viewer
from thoughtgraph.features.access import (
    LOCAL_ACTOR,
    Action,
    Principal,
    actor_of,
    check_access,
    is_admin,
    viewer_of,
)
from thoughtgraph.features.consolidation.merging import MergeService, merge_id
from thoughtgraph.features.repositories import Repositories
from thoughtgraph.ports.clock import Clock
from thoughtgraph.settings import Settings

MAX_USERS = 10
# Each user's newest private thoughts a proposal compares (the comparison is in memory).
MAX_THOUGHTS_PER_USER = 2000
MAX_PARTS = 10  # thoughts in one proposal
BLOCK_ROWS = 512  # rows of the similarity matrix computed at once
MAX_PROPOSALS = 50  # proposals one call makes (the rest: call again once these are decided)
PROPOSE_FORBIDDEN = "A key proposes merges of its own user's memory with others' (or an admin's)."


class ProposalService:
    def __init__(
        self, repos: Repositories, merging: MergeService, settings: Settings, clock: Clock
    ) -> None:
        self._repos = repos
        self._merging = merging
        self._settings = settings
        self._clock = clock

    async def propose(
        self,
        namespace: str,
        user_ids: Sequence[str],
        *,
        caller: Principal | None = None,
    ) -> list[MergeProposal]:
        """Proposals to merge the users' near-duplicate private thoughts (cosine at least
        dedupe_similarity, across two or more owners), each shown as the caller may see
        it; a proposal made before is found, not made again."""
        check_access(caller, Action.WRITE, namespace)
        check.require_namespace(namespace)
        users = sorted({check.require_identifier("userIds", u) for u in user_ids})
        if not 2 <= len(users) <= MAX_USERS:
            raise InvalidInputError(f"name 2 to {MAX_USERS} different users", field="userIds")
        viewer = viewer_of(caller)
        admin = is_admin(caller)
        if not (viewer.trusted or admin or viewer.user_id in users):
            raise ForbiddenError(PROPOSE_FORBIDDEN)
        thoughts: list[Thought] = []
        vectors: list[list[float]] = []
        for user in users:
            for thought, vector in await self._repos.proposals.private_of(
                namespace, user, MAX_THOUGHTS_PER_USER
            ):
                if self._merging.fields.guarded(thought):
                    continue  # a person field changes only by consent
                thoughts.append(thought)
                vectors.append(vector)
        proposals = []
        for cluster, similarity in self._clusters(thoughts, vectors)[:MAX_PROPOSALS]:
            proposal = MergeProposal(
                id=proposal_id(namespace, [t.id for t in cluster]),
                namespace=namespace,
                status=ProposalStatus.OPEN,
                parts=tuple(
                    ProposalPart(thought_id=t.id, owner_id=t.owner_id or "") for t in cluster
                ),
                similarity=similarity,
                created_at_ms=self._clock.now_ms(),
            )
            await self._repos.proposals.record(proposal, actor=self._actor(caller))
            proposals.append(proposal.id)
        found = await self._repos.proposals.get_many(namespace, proposals)
        # An admin proposing for others sees that proposals exist, not their thoughts (the
        # interfaces show each viewer only its own parts).
        return [
            found[p].as_seen_by(viewer)
            for p in proposals
            if p in found and (admin or found[p].seen_by(viewer))
        ]

    def _clusters(
        self, thoughts: Sequence[Thought], vectors: Sequence[Sequence[float]]
    ) -> list[tuple[list[Thought], float]]:
        """Groups of near-duplicates of different owners, with their weakest pair."""
        if len(thoughts) < 2:
            return []
        matrix = np.asarray(vectors, dtype=np.float32)
        matrix /= np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
        owners = {t.id: t.owner_id or "" for t in thoughts}
        threshold = self._settings.dedupe_similarity
        pairs: list[tuple[str, str]] = []
        weakest: dict[tuple[str, str], float] = {}
        # A block of rows at a time: 20,000 thoughts never make a 20,000-square matrix.
        for start in range(0, len(thoughts), BLOCK_ROWS):
            similar = matrix[start : start + BLOCK_ROWS] @ matrix.T
            rows, cols = np.nonzero(similar >= threshold)
            for r, j in zip(rows.tolist(), cols.tolist(), strict=True):
                i = start + r
                a, b = thoughts[i].id, thoughts[j].id
                if i < j and owners[a] != owners[b]:
                    pairs.append((a, b))
                    weakest[(a, b)] = float(similar[r, j])
        by_id = {t.id: t for t in thoughts}
        clusters = []
        # Every pair joins two owners, so every group holds two or more of them.
        for ids in connected_groups(pairs):
            members = ids[:MAX_PARTS]
            inside = [s for (a, b), s in weakest.items() if a in members and b in members]
            clusters.append(([by_id[i] for i in members], min(inside, default=threshold)))
        return clusters

    async def decide(
        self,
        namespace: str,
        proposal_id: str,
        accept: bool,
        *,
        caller: Principal,
        user_id: str | None = None,
    ) -> MergeProposal:
        """The caller's user accepts or declines their part(s). Once every part is decided,
        two or more accepted parts become one shared consolidation of them (undo it with
        undoConsolidation); fewer, and nothing changes. NOT_FOUND for a proposal the
        caller's user has no part in. ``user_id``: whose part, in open local mode only
        (with a key, always the key's user)."""
        check_access(caller, Action.WRITE, namespace)
        check.require_namespace(namespace)
        pid = check.require_identifier("id", proposal_id)
        user = caller.user if caller.key_id is not None else user_id
        found = (await self._repos.proposals.get_many(namespace, [pid])).get(pid)
        if found is None or user is None or user not in found.owners:
            raise NotFoundError("merge proposal", pid)
        decision = PartDecision.ACCEPTED if accept else PartDecision.DECLINED
        decided = await self._repos.proposals.decide(
            found, user, decision, actor=self._actor(caller), at_ms=self._clock.now_ms()
        )
        if decided is None:  # decided already: a retry finishes a merge that did not land
            decided = (await self._repos.proposals.get_many(namespace, [pid]))[pid]
        if decided.status is ProposalStatus.ACCEPTED and decided.merged_thought_id is None:
            merged_id = await self._merge(decided)
            decided = decided.model_copy(update={"merged_thought_id": merged_id})
        return decided.as_seen_by(Viewer(user_id=user))

    @staticmethod
    def _actor(caller: Principal | None) -> Actor:
        return LOCAL_ACTOR if caller is None else actor_of(caller)

    async def _merge(self, proposal: MergeProposal) -> str | None:
        """The accepted parts as one shared thought, its id (deterministic: a retry finds
        what an earlier attempt wrote); None when it could not be written."""
        stored = await self._repos.thoughts.get_many(proposal.namespace, proposal.accepted_ids)
        members = [stored[i] for i in proposal.accepted_ids if i in stored]
        if not members:
            return None
        merged_id = merge_id(proposal.namespace, [t.id for t in members])
        merged = await self._merging.merge(proposal.namespace, members, into=(Scope.SHARED, None))
        if merged is None and not await self._repos.thoughts.get_many(
            proposal.namespace, [merged_id]
        ):
            return None
        await self._repos.proposals.merged(proposal.namespace, proposal.id, merged_id)
        return merged_id

    async def of_caller(
        self,
        namespace: str,
        status: ProposalStatus | None,
        limit: int | None = None,
        *,
        caller: Principal | None = None,
    ) -> list[MergeProposal]:
        """The proposals the caller's user has a part in (every one for a trusted read or
        an admin key, which sees no one's thoughts in them)."""
        check_access(caller, Action.READ, namespace)
        check.require_namespace(namespace)
        limit = check.page_size("first", limit, check.DEFAULT_PAGE_SIZE, check.MAX_PAGE_SIZE)
        viewer = viewer_of(caller)
        admin = is_admin(caller)
        if not (viewer.trusted or admin) and viewer.user_id is None:
            return []
        owner = None if viewer.trusted or (admin and viewer.user_id is None) else viewer.user_id
        found = await self._repos.proposals.of_owner(namespace, owner, status, limit)
        return [p.as_seen_by(viewer) for p in found]
