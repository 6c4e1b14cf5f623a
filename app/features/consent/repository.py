"""Consent requests and the current values of person fields (cypher/consent)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from thoughtgraph.domain.changes import Actor, ChangeKind, SubjectKind
from thoughtgraph.domain.consent import ConsentRequest, ConsentStatus, Sensitivity
from thoughtgraph.domain.models import Thought
from thoughtgraph.store.executor import Executor
from thoughtgraph.store.params import change_params
from thoughtgraph.store.rows import optional_int, thought_from_row

FieldKey = tuple[str, str]  # (person, field)


def consent_from_row(row: Mapping[str, Any]) -> ConsentRequest:
    return ConsentRequest(
        id=row["id"],
        namespace=row["namespace"],
        person=row["person"],
        field=row["field"],
        sensitivity=Sensitivity(row["sensitivity"]),
        status=ConsentStatus(row["status"]),
        value=row["value"],
        thought_id=row["thoughtId"],
        replaces_ids=tuple(row.get("replacesIds") or ()),
        evidence=row.get("evidence"),
        proposed_by_id=row["proposedById"],
        proposed_by_name=row["proposedByName"],
        proposed_by_user=row.get("proposedByUser"),
        patch=row.get("patch"),
        signals=tuple(row.get("signals") or ()),
        created_at_ms=int(row["createdAt"]),
        expires_at_ms=int(row["expiresAt"]),
        decided_at_ms=optional_int(row.get("decidedAt")),
        decided_by=row.get("decidedBy"),
        note=row.get("note"),
    )


class ConsentRepository:
    def __init__(self, executor: Executor) -> None:
        self._x = executor

    async def field_values(
        self, namespace: str, keys: Iterable[FieldKey]
    ) -> dict[FieldKey, list[Thought]]:
        """The current thoughts holding each (person, field), in every scope."""
        wanted = sorted(set(keys))
        if not wanted:
            return {}
        rows = await self._x.read(
            "consent.field_values",
            {"namespace": namespace, "keys": [{"person": p, "field": f} for p, f in wanted]},
            namespace=namespace,
        )
        found: dict[FieldKey, list[Thought]] = {key: [] for key in wanted}
        for row in rows:
            found[(row["person"], row["field"])].append(thought_from_row(row))
        return found

    async def propose(
        self, request: ConsentRequest, *, signal: str, actor: Actor
    ) -> ConsentRequest | None:
        """The request after this signal; None when the signal added nothing (a retry, or
        a request no longer pending)."""
        rows = await self._x.write(
            "consent.propose",
            {
                "namespace": request.namespace,
                "id": request.id,
                "person": request.person,
                "field": request.field,
                "sensitivity": request.sensitivity.value,
                "value": request.value,
                "patch": request.patch,
                "thoughtId": request.thought_id,
                "replacesIds": list(request.replaces_ids),
                "evidence": request.evidence,
                "proposedById": request.proposed_by_id,
                "proposedByName": request.proposed_by_name,
                "proposedByUser": request.proposed_by_user,
                "expiresAt": request.expires_at_ms,
                "signal": signal,
                **change_params(
                    ChangeKind.CONSENT_REQUESTED,
                    SubjectKind.CONSENT_REQUEST,
                    request.id,
                    actor=actor,
                    at_ms=request.created_at_ms,
                    related_ids=[*request.replaces_ids, request.thought_id],
                    event_id=f"{request.id}:requested:{signal}:{request.created_at_ms}",
                ),
            },
            namespace=request.namespace,
        )
        return consent_from_row(rows[0]) if rows else None

    async def decide(
        self,
        request: ConsentRequest,
        status: ConsentStatus,
        *,
        decided_by: str,
        note: str | None,
        actor: Actor,
        at_ms: int,
    ) -> ConsentRequest | None:
        """The request once decided; None when it was not pending any more."""
        rows = await self._x.write(
            "consent.decide",
            {
                "namespace": request.namespace,
                "id": request.id,
                "status": status.value,
                "decidedBy": decided_by,
                "note": note,
                **change_params(
                    ChangeKind.CONSENT_DECIDED,
                    SubjectKind.CONSENT_REQUEST,
                    request.id,
                    actor=actor,
                    at_ms=at_ms,
                    related_ids=[*request.replaces_ids, request.thought_id],
                    # With the time: an expired request proposed again (reopened) can
                    # expire again, and event ids are unique. A retry appends nothing
                    # anyway (the statement decides only a pending request).
                    event_id=f"{request.id}:{status.value}:{at_ms}",
                ),
            },
            namespace=request.namespace,
        )
        return consent_from_row(rows[0]) if rows else None

    async def get_many(self, namespace: str, ids: Sequence[str]) -> dict[str, ConsentRequest]:
        if not ids:
            return {}
        rows = await self._x.read(
            "consent.get_many", {"namespace": namespace, "ids": list(ids)}, namespace=namespace
        )
        return {r["id"]: consent_from_row(r) for r in rows}

    async def listing(
        self, namespace: str, *, user_id: str | None, status: ConsentStatus | None, limit: int
    ) -> list[ConsentRequest]:
        rows = await self._x.read(
            "consent.list",
            {
                "namespace": namespace,
                "userId": user_id,
                "status": status.value if status else None,
                "limit": limit,
            },
            namespace=namespace,
        )
        return [consent_from_row(r) for r in rows]

    async def due(self, namespace: str, now_ms: int, limit: int) -> list[ConsentRequest]:
        rows = await self._x.read(
            "consent.due",
            {"namespace": namespace, "now": now_ms, "limit": limit},
            namespace=namespace,
        )
        return [consent_from_row(r) for r in rows]
