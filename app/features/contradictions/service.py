"""Contradictions: listing them and deciding them."""

from __future__ import annotations

from collections.abc import Mapping

from thoughtgraph.domain import validation as check
from thoughtgraph.domain.changes import Actor
from thoughtgraph.domain.errors import InvalidStateError, NotFoundError
from thoughtgraph.domain.knowledge import (
    Contradiction,
    ContradictionStatus,
    Resolution,
    pair_fingerprint,
    stable_thought_id,
)
from thoughtgraph.domain.models import Thought, ThoughtType
from thoughtgraph.features.access import (
    Action,
    Principal,
    check_access,
    ids_seen,
    require_change,
    seen,
    viewer_of,
)
from thoughtgraph.features.consent.gate import FieldChanges
from thoughtgraph.features.repositories import Repositories
from thoughtgraph.features.thoughts.service import ThoughtInput, ThoughtService
from thoughtgraph.ports.clock import Clock
from thoughtgraph.ports.services import Embeddings

MAX_REMEMBERED_REASONS = 256


class ContradictionService:
    def __init__(
        self,
        repos: Repositories,
        embedder: Embeddings,
        thoughts: ThoughtService,
        clock: Clock,
        fields: FieldChanges,
    ) -> None:
        self._repos = repos
        self._fields = fields
        self._embedder = embedder
        self._thoughts = thoughts
        self._clock = clock
        self._reasons: dict[str, list[float]] = {}

    async def by_status(
        self,
        namespace: str,
        status: ContradictionStatus | None,
        limit: int | None = None,
        *,
        caller: Principal | None = None,
    ) -> list[Contradiction]:
        check_access(caller, Action.READ, namespace)
        check.require_namespace(namespace)
        limit = check.page_size("first", limit, check.DEFAULT_PAGE_SIZE, check.MAX_PAGE_SIZE)
        found = await self._repos.contradictions.by_status(namespace, status, limit)
        return await self._seen(namespace, found, caller)

    async def get(
        self, namespace: str, contradiction_id: str, *, caller: Principal | None = None
    ) -> Contradiction | None:
        check_access(caller, Action.READ, namespace)
        check.require_namespace(namespace)
        cid = check.require_identifier("id", contradiction_id)
        found = (await self._repos.contradictions.get_many(namespace, [cid])).get(cid)
        shown = await self._seen(namespace, [found] if found else [], caller)
        return shown[0] if shown else None

    async def _seen(
        self, namespace: str, found: list[Contradiction], caller: Principal | None
    ) -> list[Contradiction]:
        """The contradictions whose two thoughts the caller may both see."""
        pairs = [i for c in found for i in (c.thought_a_id, c.thought_b_id)]
        shown = await ids_seen(self._repos, namespace, pairs, viewer_of(caller))
        return [c for c in found if c.thought_a_id in shown and c.thought_b_id in shown]

    async def resolve(
        self,
        namespace: str,
        contradiction_id: str,
        resolution: Resolution,
        *,
        actor: Actor,
        note: str | None = None,
        merged_content: str | None = None,
        caller: Principal | None = None,
    ) -> Contradiction:
        """a_wins / b_wins: the winner SUPERSEDES the loser; merged: a consolidation
        thought of both supersedes them; both_valid: the pair is never flagged again."""
        check_access(caller, Action.WRITE, namespace)
        found = await self.get(namespace, contradiction_id)
        # One read of the pair: another user's private pair is missing, a system one is
        # an admin's to decide.
        ids = [found.thought_a_id, found.thought_b_id] if found else []
        pair = seen(await self._repos.thoughts.get_many(namespace, ids), viewer_of(caller))
        if found is None or len(pair) < len(ids):
            raise NotFoundError("contradiction", contradiction_id)
        require_change(pair.values(), caller)
        self._fields.refuse_guarded(
            [pair[i] for i in _losers(found, resolution)], "resolving this contradiction"
        )
        note = check.optional_text("note", note, check.MAX_NOTE_CHARS)
        if found.status is ContradictionStatus.RESOLVED:
            if found.resolution is resolution:
                return found  # a retry of the same decision
            raise InvalidStateError(
                f"contradiction {found.id} was resolved already ({found.resolution})",
                field="id",
            )
        await self.resolve_open(
            found, resolution, pair=pair, actor=actor, note=note, merged_content=merged_content
        )
        resolved = await self.get(namespace, found.id)
        assert resolved is not None
        return resolved

    async def resolve_open(
        self,
        found: Contradiction,
        resolution: Resolution,
        *,
        actor: Actor,
        pair: Mapping[str, Thought] | None = None,
        note: str | None = None,
        merged_content: str | None = None,
    ) -> bool:
        """Resolve a contradiction read as open (maintenance resolves a list it read:
        no read before and after each); False when it was resolved meanwhile (left as
        it is: the statement matches open ones only), or when it would change a field
        about a person (the change is proposed to the person instead). ``pair``: its two
        thoughts, when the caller read them already (read here otherwise)."""
        if pair is None:
            pair = await self._repos.thoughts.get_many(
                found.namespace, [found.thought_a_id, found.thought_b_id]
            )
        if await self._proposed_instead(found, resolution, pair, actor):
            return False
        merged = None
        if resolution is Resolution.MERGED:
            merged = await self._merged_thought(found, pair, merged_content, actor)
        winner = {
            Resolution.A_WINS: found.thought_a_id,
            Resolution.B_WINS: found.thought_b_id,
            Resolution.MERGED: merged.id if merged else None,
            Resolution.BOTH_VALID: None,
        }[resolution]
        reason = note or f"contradiction resolved: {resolution.value}"
        return await self._repos.contradictions.resolve(
            found,
            resolution=resolution,
            winner_id=winner,
            reason=reason,
            reason_embedding=await self._reason_embedding(reason),
            note=note,
            actor=actor,
            pair_id=pair_fingerprint(found.namespace, found.thought_a_id, found.thought_b_id),
            merged_thought_id=merged.id if merged else None,
            at_ms=self._clock.now_ms(),
        )

    async def _proposed_instead(
        self,
        found: Contradiction,
        resolution: Resolution,
        pair: Mapping[str, Thought],
        actor: Actor,
    ) -> bool:
        """Maintenance resolving a pair that holds a person field: a consent request
        for the winner to replace it, and the pair left open."""
        losers = _losers(found, resolution)
        guarded = [pair[i] for i in losers if i in pair and self._fields.guarded(pair[i])]
        if not guarded:
            return False
        winner = {
            Resolution.A_WINS: found.thought_a_id,
            Resolution.B_WINS: found.thought_b_id,
        }.get(resolution)
        if winner is not None and winner in pair:
            for older in guarded:
                await self._fields.propose_replacement(
                    pair[winner], older, evidence=f"contradiction {found.id}", actor=actor
                )
        return True

    async def _reason_embedding(self, reason: str) -> list[float]:
        """Supersession detection resolves with the same few notes again and again: each
        is embedded once per process."""
        found = self._reasons.get(reason)
        if found is None:
            found = await self._embedder.async_embed_query(reason)
            if len(self._reasons) >= MAX_REMEMBERED_REASONS:
                self._reasons.clear()
            self._reasons[reason] = found
        return found

    async def _merged_thought(
        self,
        found: Contradiction,
        pair: Mapping[str, Thought],
        content: str | None,
        actor: Actor,
    ) -> Thought:
        older, newer = pair.get(found.thought_a_id), pair.get(found.thought_b_id)
        if older is None or newer is None:
            raise InvalidStateError("a thought of this contradiction is gone", field="id")
        text = content or f"{newer.content} (earlier: {older.content})"
        contribution = await self._thoughts.write_derived(
            ThoughtType.CONSOLIDATION,
            ThoughtInput(
                content=text,
                agent_id=actor.id,
                agent_name=actor.name,
                namespace=found.namespace,
                key_id=actor.key_id,
                scope=newer.scope,  # a pair is of one partition: so is what merges it
                owner_id=newer.owner_id,
            ),
            [older.id, newer.id],
            reason=f"merged to resolve contradiction {found.id}",
            thought_id=stable_thought_id("merged", found.id),
        )
        return contribution.thought


def _losers(found: Contradiction, resolution: Resolution) -> list[str]:
    """The thoughts a resolution retires."""
    return {
        Resolution.A_WINS: [found.thought_b_id],
        Resolution.B_WINS: [found.thought_a_id],
        Resolution.MERGED: [found.thought_a_id, found.thought_b_id],
        Resolution.BOTH_VALID: [],
    }[resolution]
