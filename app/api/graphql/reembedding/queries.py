"""The store's vector spaces."""

from __future__ import annotations

import strawberry

from thoughtgraph.api.graphql.reembedding.types import VectorSpaces
from thoughtgraph.api.graphql.request_context import Info


async def resolve_vector_spaces(info: Info) -> VectorSpaces:
    spaces = await info.context.services.reembedding.status(caller=info.context.principal)
    return VectorSpaces.from_domain(spaces)


@strawberry.type
class ReembeddingQuery:
    vector_spaces = strawberry.field(
        resolver=resolve_vector_spaces,
        description="The embedder every search uses now, and a re-embed's progress: the "
        "space being filled, then the switch and the retired space's drop.",
    )
