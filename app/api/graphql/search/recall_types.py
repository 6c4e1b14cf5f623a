"""Output type of recall: the reasoned answer."""

from __future__ import annotations

import strawberry

from thoughtgraph.api.graphql.search.recall_dates import ResolvedDate
from thoughtgraph.api.graphql.thoughts.types import SearchHit, Thought
from thoughtgraph.features.search import recall


@strawberry.type(description="A question answered from memory, with how and from what.")
class RecallAnswer:
    question: str
    answer: str
    confidence: float = strawberry.field(description="0 to 1.")
    reasoning: str = strawberry.field(description="How the answer was reached.")
    temporal: bool = strawberry.field(
        description="The question asks for a time: the hits' relative dates are resolved."
    )
    requires_inference: bool = strawberry.field(
        description="The answer needed reasoning beyond copying a memory (a resolved date)."
    )
    resolutions: list[ResolvedDate] = strawberry.field(
        description="The hits' relative time expressions, resolved (temporal questions)."
    )
    source_ids: list[strawberry.ID] = strawberry.field(
        description="The thoughts the answer rests on: always among the hits."
    )
    sources: list[Thought] = strawberry.field(description="Those thoughts.")
    hits: list[SearchHit] = strawberry.field(description="What the search found, best first.")
    answered_by: str = strawberry.field(
        description='The language model that answered, or "extractive" (offline).'
    )

    @classmethod
    def from_domain(cls, found: recall.RecallAnswer) -> RecallAnswer:
        # The sources are among the hits (RecallService keeps no other): nothing is read again.
        hit_thoughts = {hit.thought.id: hit.thought for hit in found.hits}
        return cls(
            question=found.question,
            answer=found.answer,
            confidence=found.confidence,
            reasoning=found.reasoning,
            temporal=found.temporal,
            requires_inference=found.requires_inference,
            resolutions=[
                ResolvedDate.from_domain(r.thought_id, r.resolution) for r in found.resolutions
            ],
            source_ids=[strawberry.ID(sid) for sid in found.sources],
            sources=[Thought.from_domain(hit_thoughts[sid]) for sid in found.sources],
            hits=[SearchHit.from_domain(hit) for hit in found.hits],
            answered_by=found.answered_by,
        )
