"""Who calls a tool, and whether they may: the same API keys, roles and namespaces as
GraphQL (app/api/access.py), found per call.

Over streamable HTTP every request carries its own key (``Authorization: Bearer <key>``
or ``X-API-Key``); ``KeyGate`` refuses a request without a valid one before the MCP
transport sees it (while keys are required) and leaves the caller in the ASGI scope for
the tools. Over stdio the server is a local process its user started: it acts with the
key in ``TG_MCP_KEY``, or as anyone while the local service is open.
"""

from __future__ import annotations

from typing import Any

from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from thoughtgraph.api.access import AccessPolicy
from thoughtgraph.api.http.errors import error_body
from thoughtgraph.domain.access import Principal
from thoughtgraph.domain.errors import InvalidInputError, ThoughtgraphError
from thoughtgraph.features.thoughts.service import ThoughtInput

PRINCIPAL_SCOPE_KEY = "thoughtgraph.principal"
UNAUTHENTICATED_MESSAGE = (
    "An API key is required: send it as `Authorization: Bearer <key>` (or `X-API-Key`); "
    "it was missing, unknown or revoked."
)


class UnauthenticatedError(ThoughtgraphError):
    code = "UNAUTHENTICATED"


class Callers:
    """Finds the caller of one tool call. ``stdio_key``: the key a stdio server acts with
    (None over HTTP, where each request brings its own)."""

    def __init__(self, access: AccessPolicy, *, stdio_key: str | None = None) -> None:
        self.access = access
        self.stdio_key = stdio_key

    def stdio_principal(self) -> Principal | None:
        """The caller of a stdio server; None when keys are required and its key is
        missing, unknown or revoked (checked on every call: a revoked key stops at once)."""
        headers = {"authorization": f"Bearer {self.stdio_key}"} if self.stdio_key else {}
        return self.access.principal_for(headers)

    def principal(self, request: Any | None) -> Principal:
        """The caller of the tool call ``request`` (the HTTP request that carried it, or
        None over stdio)."""
        if request is None:
            found = self.stdio_principal()
        else:
            found = request.scope.get(PRINCIPAL_SCOPE_KEY)
        if not isinstance(found, Principal):
            raise UnauthenticatedError(UNAUTHENTICATED_MESSAGE)
        return found


def with_named_agent(principal: Principal, data: ThoughtInput) -> ThoughtInput:
    """Without an API key a write names its agent in the arguments, which the tool's
    schema leaves optional: refuse one that names none (a key's writes are its agent's)."""
    require_named_agent(principal, data.agent_id, data.agent_name)
    return data


def require_named_agent(principal: Principal, agent_id: str, agent_name: str) -> None:
    """``with_named_agent``'s check for a write whose input is not a ``ThoughtInput``."""
    if principal.key_id is None or principal.agent_id is None:
        for field, value in (("agent_id", agent_id), ("agent_name", agent_name)):
            if not value.strip():
                raise InvalidInputError(
                    f"{field} is required when the server runs without an API key", field=field
                )


class KeyGate:
    """ASGI middleware in front of the MCP endpoint: a request without a valid key is
    answered 401 (while keys are required); any other goes on with its caller in the
    scope. ``open_paths`` (liveness, readiness) need no key, as in the GraphQL service."""

    def __init__(self, app: ASGIApp, access: AccessPolicy, *, open_paths: tuple[str, ...]):
        self.app = app
        self.access = access
        self.open_paths = open_paths

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("path") in self.open_paths:
            await self.app(scope, receive, send)
            return
        principal = self.access.principal_for(Headers(scope=scope))
        if principal is None:
            refusal = JSONResponse(
                error_body(UNAUTHENTICATED_MESSAGE, UnauthenticatedError.code),
                status_code=401,
                headers={"www-authenticate": "Bearer"},
            )
            await refusal(scope, receive, send)
            return
        scope[PRINCIPAL_SCOPE_KEY] = principal
        await self.app(scope, receive, send)
