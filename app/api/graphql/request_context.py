"""What every resolver gets as ``info.context``: the services and this request's loaders."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeAlias

import strawberry
from starlette.requests import Request
from starlette.responses import Response
from starlette.websockets import WebSocket

from thoughtgraph.api.graphql.dataloaders import Loaders
from thoughtgraph.domain.access import Principal
from thoughtgraph.features.services import Services


@dataclass
class GraphQLContext:
    """Built fresh per request by ``ThoughtgraphGraphQL.get_context``."""

    services: Services
    loaders: Loaders
    request: Request | WebSocket | None = None
    response: Response | WebSocket | None = None
    principal: Principal = field(default_factory=Principal.anyone)
    query_cost: int = 0  # what the query guard computed for this operation

    @classmethod
    def for_services(
        cls,
        services: Services,
        request: Request | WebSocket | None = None,
        response: Response | WebSocket | None = None,
        principal: Principal | None = None,
    ) -> GraphQLContext:
        """A context with new, empty loaders: never share one between requests."""
        principal = principal or Principal.anyone()
        return cls(
            services=services,
            loaders=Loaders.build(
                services.browse, services.topics, services.consolidation, principal
            ),
            request=request,
            response=response,
            principal=principal,
        )


Info: TypeAlias = strawberry.Info[GraphQLContext, None]
