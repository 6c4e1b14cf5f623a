"""The one gate every change to a person field passes (thoughtgraph.domain.consent).

A contribution that would change a field is held as a consent request instead of being
written; maintenance that would retire a field's value proposes the change instead;
explicit changes to a field's value by other means (supersede, refine, resolve) are
refused with CONSENT_REQUIRED. An approved or corroborated request is applied here: the
held thought is written (with its deterministic id) and supersedes the values it
replaces, each step idempotent, so applying again after a failure finishes the change.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Sequence

from thoughtgraph.domain.changes import Actor, ChangeKind
from thoughtgraph.domain.consent import (
    ConsentRequest,
    ConsentStatus,
    FieldPolicy,
    Sensitivity,
    request_id,
    same_value,
    signal_of,
)
from thoughtgraph.domain.errors import ConsentRequiredError
from thoughtgraph.domain.knowledge import stable_thought_id
from thoughtgraph.domain.models import Thought, ThoughtKind, ThoughtRecord, ThoughtType
from thoughtgraph.domain.scopes import Scope
from thoughtgraph.features.repositories import Repositories
from thoughtgraph.features.thoughts.inputs import (
    ThoughtInput,
    ValidatedInput,
    new_thought,
    validate_input,
)
from thoughtgraph.ports.clock import Clock
from thoughtgraph.ports.services import Embeddings

CONSENT_DETECTOR = "consent"


def patch_of(data: ValidatedInput) -> str:
    """A held contribution, as the request stores it."""
    fields = dataclasses.asdict(data)
    fields["tags"] = list(data.tags)
    return json.dumps(fields, sort_keys=True)


def input_of(patch: str) -> ThoughtInput:
    fields = json.loads(patch)
    fields.pop("reason", None)
    fields["kind"] = ThoughtKind(fields["kind"])
    fields["scope"] = Scope(fields["scope"])
    fields["tags"] = tuple(fields["tags"])
    return ThoughtInput(**fields)


class FieldChanges:
    def __init__(
        self, repos: Repositories, embedder: Embeddings, policy: FieldPolicy, clock: Clock
    ) -> None:
        self._repos = repos
        self._embedder = embedder
        self.policy = policy
        self._clock = clock

    def with_person(self, data: ThoughtInput, user: str | None) -> ThoughtInput:
        """A person field names its person: the input's ``about``, else the private
        thought's owner, else the user whose key writes it."""
        if data.about is not None or self.policy.sensitivity(data.category) is None:
            return data
        person = data.owner_id if data.scope is Scope.PRIVATE else None
        return dataclasses.replace(data, about=person or user)

    def guarded(self, thought: Thought) -> bool:
        """Whether the thought holds a person field (its value changes only by consent)."""
        return self.policy.field_of(thought.category, thought.about) is not None

    def refuse_guarded(self, thoughts: Iterable[Thought], action: str) -> None:
        held = [t.id for t in thoughts if self.guarded(t)]
        if held:
            raise ConsentRequiredError(
                f"{action} would change a field about a person ({', '.join(held)}): "
                "contribute the new value with its category and about; the person "
                "approves it (consentRequests, approveConsent)",
                ids=held,
            )

    async def held(self, data: ValidatedInput, *, user: str | None) -> ConsentRequest | None:
        """The request a contribution becomes when it would change a person field; None
        when it is written as usual (not a field, a first value, or the same value)."""
        return (await self.held_many([data], user=user))[0]

    async def held_many(
        self, values: Sequence[ValidatedInput], *, user: str | None
    ) -> list[ConsentRequest | None]:
        """``held`` for each of a batch, its fields' current values read in one statement
        per namespace."""
        fields = [self.policy.field_of(v.category, v.about) for v in values]
        wanted: dict[str, set[tuple[str, str]]] = {}
        for value, field in zip(values, fields, strict=True):
            if field is not None and value.about is not None:
                wanted.setdefault(value.namespace, set()).add((value.about, field))
        current = {
            namespace: await self._repos.consent.field_values(namespace, keys)
            for namespace, keys in wanted.items()
        }
        found: list[ConsentRequest | None] = []
        for value, field in zip(values, fields, strict=True):
            if field is None or value.about is None:
                found.append(None)
                continue
            values_now = current[value.namespace][(value.about, field)]
            found.append(await self._held_against(value, field, values_now, user=user))
        return found

    async def _held_against(
        self, data: ValidatedInput, field: str, current: Sequence[Thought], *, user: str | None
    ) -> ConsentRequest | None:
        if not current or any(same_value(t.content, data.content) for t in current):
            return None
        return await self._change(
            data,
            field,
            [t.id for t in current],
            evidence=data.context or data.reason,
            proposer=Actor(id=data.agent_id, name=data.agent_name, key_id=data.key_id),
            user=user,
        )

    async def propose_replacement(
        self, newer: Thought, older: Thought, *, evidence: str, actor: Actor
    ) -> ConsentRequest | None:
        """Maintenance found that ``newer`` replaces a person field's value: the change is
        proposed, not applied. Approved, the newer statement is written again as the
        field's value (so the field keeps a value). None when ``older`` holds no field."""
        field = self.policy.field_of(older.category, older.about)
        if field is None or older.about is None:
            return None
        value = ThoughtInput(
            content=newer.content,
            agent_id=newer.agent_id,
            agent_name=newer.agent_name,
            namespace=older.namespace,
            context=newer.context,
            session_id=newer.session_id,
            tags=newer.tags,
            kind=newer.kind,
            importance=newer.importance,
            category=older.category,
            scope=older.scope,
            owner_id=older.owner_id,
            about=older.about,
        )
        return await self._change(
            validate_input(value, None),
            field,
            [older.id],
            evidence=f"{evidence} (thought {newer.id})",
            proposer=actor,
            user=None,
        )

    async def _change(
        self,
        value: ValidatedInput,
        field: str,
        replaces: Sequence[str],
        *,
        evidence: str | None,
        proposer: Actor,
        user: str | None,
    ) -> ConsentRequest:
        """Propose ``value`` (a thought about a person) for ``field``, replacing the values
        ``replaces``; the proposal's signal is the value's agent and session."""
        assert value.about is not None
        rid = request_id(value.namespace, value.about, field, value.content, replaces)
        now = self._clock.now_ms()
        request = ConsentRequest(
            id=rid,
            namespace=value.namespace,
            person=value.about,
            field=field,
            sensitivity=self._sensitivity(value.category),
            status=ConsentStatus.PENDING,
            value=value.content,
            thought_id=stable_thought_id("consent", rid),
            replaces_ids=tuple(sorted(replaces)),
            evidence=evidence,
            proposed_by_id=proposer.id,
            proposed_by_name=proposer.name,
            proposed_by_user=user,
            patch=patch_of(value),
            created_at_ms=now,
            expires_at_ms=now + self.policy.expiry_ms,
        )
        return await self._propose(request, signal_of(value.agent_id, value.session_id), proposer)

    def _sensitivity(self, category: str | None) -> Sensitivity:
        found = self.policy.sensitivity(category)
        assert found is not None
        return found

    async def _propose(self, request: ConsentRequest, signal: str, actor: Actor) -> ConsentRequest:
        stored = await self._repos.consent.propose(request, signal=signal, actor=actor)
        if stored is None:  # nothing new: a retry, or a request decided already
            stored = (await self._repos.consent.get_many(request.namespace, [request.id]))[
                request.id
            ]
        if stored.status is ConsentStatus.PENDING and stored.corroborated:
            decided = await self._repos.consent.decide(
                stored,
                ConsentStatus.APPLIED,
                decided_by="corroboration",
                note=f"corroborated by {stored.signal_count} signals",
                actor=actor,
                at_ms=self._clock.now_ms(),
            )
            if decided is not None:
                await self.apply(decided, actor)
                return decided
        return stored

    async def apply(self, request: ConsentRequest, actor: Actor) -> None:
        """Write the approved value (when held) and let it supersede the field's values;
        the decision is each supersession's reason."""
        await self._write_held(request)
        reason = (
            f"consent request {request.id} {request.status.value} "
            f"({request.decided_by or 'unknown'})"
        )
        embedding = await self._embedder.async_embed_query(reason)
        # The values current now (a value approved since this request was made included:
        # the person's latest decision is the value).
        key = (request.person, request.field)
        current = (await self._repos.consent.field_values(request.namespace, [key]))[key]
        for older in sorted({t.id for t in current} - {request.thought_id}):
            await self._repos.supersession.supersede(
                request.namespace,
                request.thought_id,
                older,
                reason=reason,
                reason_embedding=embedding,
                detector=CONSENT_DETECTOR,
                confidence=1.0,
                actor=actor,
                at_ms=self._clock.now_ms(),
            )

    async def _write_held(self, request: ConsentRequest) -> None:
        if request.patch is None:
            raise ValueError(f"consent request {request.id} holds no value to write")
        data = validate_input(input_of(request.patch), None)
        vectors = await self._embedder.async_embed_documents([data.content])
        thought = new_thought(data, ThoughtType.ORIGINAL, request.thought_id, self._clock.now_ms())
        record = ThoughtRecord(
            thought=thought, embedding=tuple(vectors[0]), actor_key_id=data.key_id
        )
        await self._repos.thoughts.create(
            record,
            event_id=f"{thought.id}:{ChangeKind.CREATED.value}",
            event_kind=ChangeKind.CREATED.value,
        )
