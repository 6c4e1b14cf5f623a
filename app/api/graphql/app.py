"""The ASGI app mounted at /graphql: one schema, a fresh context per request.

A request the server cannot read as GraphQL (a body that is not UTF-8, not JSON, not a
JSON object, nested deeper than a parser can follow, or an unsupported method) gets a
400-class answer in GraphQL's own error shape, with a code, instead of plain text or a 500.
A browser asking for the page (GET, text/html) gets GraphiQL from app/graphiql, served from
this package and without an API key (the operations it sends need one).
"""

from __future__ import annotations

from typing import Any

import structlog
from cross_web import AsyncHTTPRequestAdapter, HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.websockets import WebSocket
from strawberry.asgi import GraphQL
from strawberry.http import GraphQLRequestData
from strawberry.types.unset import UNSET

from thoughtgraph.api.access import AccessPolicy
from thoughtgraph.api.graphiql.page import GraphiQLPage
from thoughtgraph.api.graphql.request_context import GraphQLContext
from thoughtgraph.api.graphql.schema import build_schema
from thoughtgraph.api.http.errors import error_body
from thoughtgraph.features.services import Services
from thoughtgraph.settings import Settings

log = structlog.get_logger(__name__)

HTTP_CODES = {
    400: "BAD_REQUEST",
    401: "UNAUTHENTICATED",
    404: "NOT_FOUND",
    405: "METHOD_NOT_ALLOWED",
    413: "REQUEST_TOO_LARGE",
    415: "UNSUPPORTED_MEDIA_TYPE",
    503: "SERVICE_UNAVAILABLE",
}


def coded_http_error(status: int, message: str) -> JSONResponse:
    code = HTTP_CODES.get(status, "BAD_REQUEST")
    return JSONResponse(error_body(message, code), status_code=status)


class ThoughtgraphGraphQL(GraphQL[GraphQLContext, None]):
    def __init__(
        self,
        *args: Any,
        max_response_bytes: int,
        access: AccessPolicy,
        graphiql: GraphiQLPage,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.max_response_bytes = max_response_bytes
        self.access = access
        self.graphiql = graphiql

    async def render_graphql_ide(self, request: Request) -> Response:
        """GraphiQL, unless switched off: by default it is off once keys are required."""
        if not self.graphiql.enabled:
            raise HTTPException(404, "GraphiQL is switched off (TG_GRAPHIQL).")
        return self.graphiql.page()

    def encode_json(self, data: object) -> str | bytes:
        """The response, unless it is larger than the cap: then a coded error instead. The
        cost limit refuses most such operations before they run; this is the backstop for
        what a cost cannot see (long texts)."""
        encoded = super().encode_json(data)
        if len(encoded) <= self.max_response_bytes:
            return encoded
        log.warning("graphql.response_too_large", size=len(encoded), limit=self.max_response_bytes)
        message = (
            f"The response would be {len(encoded):,} bytes; the limit is "
            f"{self.max_response_bytes:,}. Ask for fewer items or fields."
        )
        return super().encode_json(
            error_body(
                message, "RESPONSE_TOO_LARGE", size=len(encoded), limit=self.max_response_bytes
            )
        )

    async def get_context(
        self, request: Request | WebSocket, response: Response | WebSocket
    ) -> GraphQLContext:
        services: Services | None = getattr(request.app.state, "services", None)
        if services is None:
            # Outside the lifespan (starting or stopping): nothing to serve with.
            raise HTTPException(503, "The service is not ready.")
        principal = self.access.principal_for(request.headers)
        if principal is None:
            raise HTTPException(
                401,
                "An API key is required: send it as `Authorization: Bearer <key>` "
                "(or `X-API-Key`); it was missing, unknown or revoked.",
            )
        return GraphQLContext.for_services(services, request, response, principal)

    async def run(  # type: ignore[override]
        self, request: Request | WebSocket, context: Any = UNSET, root_value: Any = UNSET
    ) -> Response | WebSocket:
        try:
            if isinstance(request, Request) and self.should_render_graphql_ide(
                self.request_adapter_class(request)
            ):
                # Before the context, which needs a key: the page itself is public.
                return await self.render_graphql_ide(request)
            return await super().run(request, context, root_value)
        except HTTPException as exc:
            return coded_http_error(exc.status_code, exc.reason)

    async def parse_http_body(
        self, request: AsyncHTTPRequestAdapter
    ) -> GraphQLRequestData | list[GraphQLRequestData]:
        try:
            return await super().parse_http_body(request)
        except UnicodeError as exc:  # before ValueError: UnicodeDecodeError is one
            raise HTTPException(400, "The request body is not valid UTF-8.") from exc
        except RecursionError as exc:
            raise HTTPException(400, "The request body is nested too deeply.") from exc
        except ValueError as exc:  # JSON the decoder refused (JSONDecodeError is one)
            raise HTTPException(400, "Unable to parse request body as JSON.") from exc
        except AttributeError as exc:  # `123`, `null`, `"text"`: no .get on a non-object
            raise HTTPException(400, "The request body must be a JSON object.") from exc


def create_graphql_app(
    settings: Settings, access: AccessPolicy, graphiql: GraphiQLPage | None = None
) -> GraphQL[GraphQLContext, None]:
    """``graphiql``: the page whose files the app's /graphiql-assets route serves."""
    return ThoughtgraphGraphQL(
        build_schema(settings, access),
        graphql_ide="graphiql",
        max_response_bytes=settings.max_response_bytes,
        access=access,
        graphiql=graphiql or GraphiQLPage(access, settings.graphiql),
    )
