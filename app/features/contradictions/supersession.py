"""Superseding: a newer thought retires an older one, which stays stored and traceable.

A field about a person (thoughtgraph.domain.consent) is never superseded here: a caller
is told CONSENT_REQUIRED, maintenance proposes the change to the person instead.
Maintenance supersedes only claims: a person or an agent may retire anything, but a
detector (topic summaries, supersession detection) never retires a question, a greeting,
thanks or an opinion, nor lets one retire a fact
(:func:`thoughtgraph.domain.language.claims.is_claim`)."""

from __future__ import annotations

from thoughtgraph.domain import validation as check
from thoughtgraph.domain.changes import Actor
from thoughtgraph.domain.errors import InvalidInputError, InvalidStateError, ThoughtNotFoundError
from thoughtgraph.domain.language.claims import is_claim
from thoughtgraph.domain.models import Thought
from thoughtgraph.features.access import (
    Action,
    Principal,
    check_access,
    require_change,
    seen,
    viewer_of,
)
from thoughtgraph.features.consent.gate import FieldChanges
from thoughtgraph.features.repositories import Repositories
from thoughtgraph.ports.clock import Clock
from thoughtgraph.ports.services import Embeddings


class SupersessionService:
    def __init__(
        self, repos: Repositories, embedder: Embeddings, clock: Clock, fields: FieldChanges
    ) -> None:
        self._repos = repos
        self._fields = fields
        self._embedder = embedder
        self._clock = clock

    async def supersede(
        self,
        namespace: str,
        newer_id: str,
        older_id: str,
        *,
        reason: str,
        actor: Actor,
        detector: str = "api",
        confidence: float = 1.0,
        caller: Principal | None = None,
    ) -> Thought:
        """The older thought, now superseded by the newer. Superseding again by the same
        thought is a no-op; reversing a decision already taken is INVALID_STATE."""
        check_access(caller, Action.WRITE, namespace)
        check.require_namespace(namespace)
        newer = check.require_thought_id("newerId", newer_id)
        older = check.require_thought_id("olderId", older_id)
        text = check.require_text("reason", reason, check.MAX_REASON_CHARS)
        if newer == older:
            raise InvalidInputError("a thought cannot supersede itself", field="olderId")
        found = seen(
            await self._repos.thoughts.get_many(namespace, [newer, older]), viewer_of(caller)
        )
        missing = [tid for tid in (newer, older) if tid not in found]
        if missing:
            raise ThoughtNotFoundError(missing)
        require_change([found[older]], caller)
        if found[newer].partition != found[older].partition:
            raise InvalidInputError(
                "a thought supersedes only one of its own scope (and owner): "
                f"{newer} is {found[newer].scope.value}, {older} is {found[older].scope.value}",
                field="newerId",
            )
        maintenance = actor.id == Actor.maintenance().id
        if maintenance and not (is_claim(found[newer].content) and is_claim(found[older].content)):
            return found[older]  # not knowledge that can change: left as it is
        if maintenance and self._fields.guarded(found[older]):
            # A person field: the change is proposed to the person, not applied.
            await self._fields.propose_replacement(
                found[newer], found[older], evidence=text, actor=actor
            )
            return found[older]
        self._fields.refuse_guarded([found[older]], "superseding")
        if found[newer].superseded_by == older:
            raise InvalidStateError(
                f"{older} already supersedes {newer}; resolve the other way round first",
                field="newerId",
            )
        embedding = await self._embedder.async_embed_query(text)
        await self._repos.supersession.supersede(
            namespace,
            newer,
            older,
            reason=text,
            reason_embedding=embedding,
            detector=detector,
            confidence=confidence,
            actor=actor,
            at_ms=self._clock.now_ms(),
        )
        return (await self._repos.thoughts.get_many(namespace, [older]))[older]
