"""What a write answers: the stored (or held) thought, its revision, guidance toward a
near-duplicate, a consent request, and whether fact extraction was queued."""

from __future__ import annotations

import strawberry

from thoughtgraph.api.graphql.consent.types import ConsentRequest
from thoughtgraph.api.graphql.request_context import Info
from thoughtgraph.api.graphql.thoughts.types import Thought, load_thought
from thoughtgraph.domain import models


async def resolve_similar_thought(root: Guidance, info: Info) -> Thought | None:
    return await load_thought(info, root.namespace, root.similar_thought_id)


@strawberry.type(description="A very similar thought exists: consider refining it instead.")
class Guidance:
    similar_thought_id: strawberry.ID
    similarity: float
    message: str
    namespace: strawberry.Private[str]
    similar_thought = strawberry.field(resolver=resolve_similar_thought)

    @classmethod
    def from_domain(cls, guidance: models.Guidance, namespace: str) -> Guidance:
        return cls(
            similar_thought_id=strawberry.ID(guidance.similar_thought_id),
            similarity=guidance.similarity,
            message=guidance.message,
            namespace=namespace,
        )


@strawberry.type(description="The stored (or held) thought, its revision and any guidance.")
class ContributionPayload:
    thought: Thought
    revision: int
    guidance: Guidance | None
    consent_request: ConsentRequest | None = strawberry.field(
        description=(
            "Set when the thought would change a field about a person: it was held, not"
            " written (`thought` is what it will be once the person approves)."
        )
    )
    extraction_queued: bool = strawberry.field(
        description="True when `extract: true` queued splitting it into facts (a model is set)."
    )

    @classmethod
    def from_domain(cls, contribution: models.Contribution) -> ContributionPayload:
        thought = contribution.thought
        guidance = contribution.guidance
        held = contribution.consent_request
        return cls(
            thought=Thought.from_domain(thought),
            revision=contribution.revision,
            guidance=Guidance.from_domain(guidance, thought.namespace) if guidance else None,
            consent_request=ConsentRequest.from_domain(held) if held is not None else None,
            extraction_queued=contribution.extraction_queued,
        )
