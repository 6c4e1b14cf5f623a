"""Consent requests as people and agents see them: listing, approving, rejecting, and the
scheduled expiry of those nobody decided."""

from __future__ import annotations

from thoughtgraph.domain import validation as check
from thoughtgraph.domain.changes import Actor
from thoughtgraph.domain.consent import ConsentDecision, ConsentRequest, ConsentStatus
from thoughtgraph.domain.errors import ForbiddenError, InvalidStateError, NotFoundError
from thoughtgraph.features.access import Action, Principal, check_access, viewer_of
from thoughtgraph.features.consent.gate import FieldChanges
from thoughtgraph.features.repositories import Repositories
from thoughtgraph.ports.clock import Clock

EXPIRY_BATCH = 500
APPLIED = (ConsentStatus.APPROVED, ConsentStatus.APPLIED)


class ConsentService:
    def __init__(self, repos: Repositories, fields: FieldChanges, clock: Clock) -> None:
        self._repos = repos
        self.fields = fields
        self._clock = clock

    async def requests(
        self,
        namespace: str,
        status: ConsentStatus | None = None,
        limit: int | None = None,
        *,
        caller: Principal | None = None,
    ) -> list[ConsentRequest]:
        """The requests about the caller's user or proposed through its keys, newest
        first; every request for a trusted reader (open local mode, the service itself).
        A key acting for no user sees none: a request says something about a person."""
        check_access(caller, Action.READ, namespace)
        check.require_namespace(namespace)
        limit = check.page_size("first", limit, check.DEFAULT_PAGE_SIZE, check.MAX_PAGE_SIZE)
        viewer = viewer_of(caller)
        if not viewer.trusted and viewer.user_id is None:
            return []
        user = None if viewer.trusted else viewer.user_id
        return await self._repos.consent.listing(
            namespace, user_id=user, status=status, limit=limit
        )

    async def decide(
        self,
        namespace: str,
        request_id: str,
        decision: ConsentDecision,
        *,
        note: str | None = None,
        caller: Principal | None = None,
    ) -> ConsentRequest:
        """The person's decision. Approving applies the change (a retry of an approval
        finishes applying it); deciding a request decided otherwise is INVALID_STATE."""
        check_access(caller, Action.WRITE, namespace)
        check.require_namespace(namespace)
        rid = check.require_identifier("id", request_id)
        note = check.optional_text("note", note, check.MAX_NOTE_CHARS)
        found = (await self._repos.consent.get_many(namespace, [rid])).get(rid)
        if found is None or not found.seen_by(viewer_of(caller)):
            raise NotFoundError("consent request", rid)
        decider = self._decider(found, caller)
        wanted = (
            ConsentStatus.APPROVED
            if decision is ConsentDecision.APPROVE
            else (ConsentStatus.REJECTED)
        )
        actor = _actor(caller, decider)
        if found.status is ConsentStatus.PENDING:
            decided = await self._repos.consent.decide(
                found,
                wanted,
                decided_by=decider,
                note=note,
                actor=actor,
                at_ms=self._clock.now_ms(),
            )
            found = decided or (await self._repos.consent.get_many(namespace, [rid]))[rid]
        if found.status is wanted or (wanted is ConsentStatus.APPROVED and found.status in APPLIED):
            if found.status in APPLIED:
                await self.fields.apply(found, actor)
            return found
        raise InvalidStateError(
            f"consent request {rid} is {found.status.value} already", field="id"
        )

    async def expire_due(self, namespace: str, limit: int = EXPIRY_BATCH) -> int:
        """Close the pending requests whose time ran out; nothing they proposed changes."""
        now = self._clock.now_ms()
        expired = 0
        for request in await self._repos.consent.due(namespace, now, limit):
            closed = await self._repos.consent.decide(
                request,
                ConsentStatus.EXPIRED,
                decided_by="expiry",
                note=None,
                actor=Actor.maintenance("consent-expiry"),
                at_ms=now,
            )
            expired += closed is not None
        return expired

    @staticmethod
    def _decider(request: ConsentRequest, caller: Principal | None) -> str:
        """Only the person's own key decides (or the operator in open local mode)."""
        keyed = caller is not None and caller.key_id is not None
        if not keyed:
            return "local"
        assert caller is not None
        if caller.user != request.person:
            raise ForbiddenError(
                f"only {request.person}'s key decides a change to their {request.field}",
                namespace=request.namespace,
            )
        return request.person


def _actor(caller: Principal | None, decider: str) -> Actor:
    if caller is None or caller.agent_id is None:
        return Actor(id=decider, name=decider)
    return Actor(
        id=caller.agent_id, name=caller.agent_name or caller.agent_id, key_id=caller.key_id
    )
