"""Usage signals: a thought an agent acted on is cited, one
it was given and did not use is ignored. Both move its retention score, and so its tier
and rank; neither changes knowledge, so neither is in the change log."""

from __future__ import annotations

import strawberry

from thoughtgraph.api.graphql.request_context import Info
from thoughtgraph.api.graphql.thoughts.types import Thought
from thoughtgraph.domain.models import DEFAULT_NAMESPACE


async def resolve_cite(
    info: Info, thought_id: strawberry.ID, action: str, namespace: str = DEFAULT_NAMESPACE
) -> Thought:
    cited = await info.context.services.search.cite(
        namespace, thought_id, action, caller=info.context.principal
    )
    return Thought.from_domain(cited)


async def resolve_ignore(
    info: Info, thought_id: strawberry.ID, namespace: str = DEFAULT_NAMESPACE
) -> Thought:
    ignored = await info.context.services.search.ignore(
        namespace, thought_id, caller=info.context.principal
    )
    return Thought.from_domain(ignored)


@strawberry.type
class UsageMutation:
    cite = strawberry.mutation(
        resolver=resolve_cite,
        description=(
            "The thought influenced an action (what, in `action`, up to 500 characters):"
            " counts as a use and raises its retention and rank."
        ),
    )
    ignore = strawberry.mutation(
        resolver=resolve_ignore,
        description=(
            "The thought was retrieved but not used: each ignore lowers its retention,"
            " toward the cold and archived tiers."
        ),
    )
