"""The ASGI app mounted at /graphql: one schema, a fresh context per request."""

from __future__ import annotations

from cross_web import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.websockets import WebSocket
from strawberry.asgi import GraphQL

from app.graphql.context import GraphQLContext
from app.graphql.schema import build_schema
from app.services.container import Services
from app.settings import Settings


class ThoughtgraphGraphQL(GraphQL[GraphQLContext, None]):
    async def get_context(
        self, request: Request | WebSocket, response: Response | WebSocket
    ) -> GraphQLContext:
        services: Services | None = getattr(request.app.state, "services", None)
        if services is None:
            # Outside the lifespan (starting or stopping): nothing to serve with.
            raise HTTPException(503, "The service is not ready.")
        return GraphQLContext.for_services(services, request, response)


def create_graphql_app(settings: Settings) -> GraphQL[GraphQLContext, None]:
    return ThoughtgraphGraphQL(build_schema(settings), graphql_ide="graphiql")
