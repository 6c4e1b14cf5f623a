"""Consent for changes to what the memory says about a person: list the requests about
you (or proposed by you), and approve or reject a change to a field about you."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel, Field

from thoughtgraph.api.mcp.tools.env import READ_ONLY, WRITES, Namespace, ToolEnv
from thoughtgraph.api.mcp.tools.shapes import Shape, iso
from thoughtgraph.domain.consent import (
    ConsentDecision,
    ConsentRequest,
    ConsentStatus,
    Sensitivity,
)
from thoughtgraph.domain.models import DEFAULT_NAMESPACE

RequestId = Annotated[str, Field(description="The consent request to decide.")]
Note = Annotated[str | None, Field(description="Why (up to 2,000 characters), kept with it.")]


class ConsentOut(Shape):
    id: str
    namespace: str
    person: str  # the user it is about: the one whose key decides
    field: str
    sensitivity: Sensitivity
    status: ConsentStatus
    value: str  # the proposed value
    thought_id: str  # the thought holding the value once applied
    replaces_ids: list[str]  # the current values it supersedes once applied
    evidence: str | None
    proposed_by_id: str
    proposed_by_name: str
    signals: int  # independent signals (agent and session) that proposed it
    created_at: str | None
    expires_at: str | None
    decided_at: str | None
    decided_by: str | None
    note: str | None

    @classmethod
    def of(cls, request: ConsentRequest) -> ConsentOut:
        return cls.copy_of(
            request,
            replaces_ids=list(request.replaces_ids),
            signals=request.signal_count,
            created_at=iso(request.created_at_ms),
            expires_at=iso(request.expires_at_ms),
            decided_at=iso(request.decided_at_ms),
        )


class ConsentRequestsOut(BaseModel):
    requests: list[ConsentOut]


def register(server: MCPServer[Any], env: ToolEnv) -> None:
    async def consent_requests(
        ctx: Context[Any, Any],
        namespace: Namespace = DEFAULT_NAMESPACE,
        status: Annotated[
            ConsentStatus | None, Field(description="Only those in this status.")
        ] = None,
        first: Annotated[int | None, Field(description="1 to 100 (20).")] = None,
    ) -> ConsentRequestsOut:
        """Consent requests about your key's user, or proposed through your user's keys,
        newest first: changes to a field about a person waiting for (or past) its
        decision."""
        found = await env.services.consent.requests(
            namespace, status, first, caller=env.caller(ctx)
        )
        return ConsentRequestsOut(requests=[ConsentOut.of(r) for r in found])

    async def decide(
        ctx: Context[Any, Any],
        namespace: str,
        request_id: str,
        decision: ConsentDecision,
        note: str | None,
    ) -> ConsentOut:
        decided = await env.services.consent.decide(
            namespace, request_id, decision, note=note, caller=env.caller(ctx)
        )
        return ConsentOut.of(decided)

    async def approve_consent(
        ctx: Context[Any, Any],
        request_id: RequestId,
        note: Note = None,
        namespace: Namespace = DEFAULT_NAMESPACE,
    ) -> ConsentOut:
        """Approve a change to a field about you (your key's user only, FORBIDDEN
        otherwise): the new value is written and supersedes the old one. INVALID_STATE
        when the request was rejected or expired."""
        return await decide(ctx, namespace, request_id, ConsentDecision.APPROVE, note)

    async def reject_consent(
        ctx: Context[Any, Any],
        request_id: RequestId,
        note: Note = None,
        namespace: Namespace = DEFAULT_NAMESPACE,
    ) -> ConsentOut:
        """Reject a change to a field about you (your key's user only): nothing changes.
        INVALID_STATE when the request was approved, applied or expired."""
        return await decide(ctx, namespace, request_id, ConsentDecision.REJECT, note)

    server.add_tool(consent_requests, annotations=READ_ONLY)
    idempotent = WRITES.model_copy(update={"idempotent_hint": True})
    server.add_tool(approve_consent, annotations=idempotent)
    server.add_tool(reject_consent, annotations=idempotent)
