"""Asking a worker to re-embed the store with another embedder."""

from __future__ import annotations

import strawberry

from thoughtgraph.api.graphql.reembedding.types import VectorSpaces
from thoughtgraph.api.graphql.request_context import Info


async def resolve_reembed(
    info: Info,
    embedder: str,
    model: str | None = None,
    dimension: int | None = None,
) -> VectorSpaces:
    spaces = await info.context.services.reembedding.request(
        embedder, model=model, dimension=dimension, caller=info.context.principal
    )
    return VectorSpaces.from_domain(spaces)


@strawberry.type
class ReembeddingMutation:
    reembed = strawberry.mutation(
        resolver=resolve_reembed,
        description=(
            "Admin (every namespace): queue a re-embed of every thought, reason, topic and"
            " episode with another embedder (`embedder`: local, litellm, hash or none;"
            " `model`, `dimension` as TG_EMBEDDING_*; a hosted model is asked at the"
            " service's TG_EMBEDDING_API_BASE). A worker fills new vector"
            " indexes while searches use the current ones, then switches; follow it with"
            " `vectorSpaces`. INVALID_STATE while another embedder's re-embed runs or when"
            " no worker runs here; VALIDATION_ERROR for settings that cannot work."
        ),
    )
