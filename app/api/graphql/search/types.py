"""Two-tier search results: topic summaries first, then thoughts."""

from __future__ import annotations

import strawberry

from thoughtgraph.api.graphql.search.explain import DetailLevel
from thoughtgraph.api.graphql.thoughts.types import SearchHit
from thoughtgraph.api.graphql.topics.types import Topic
from thoughtgraph.domain import retrieval


@strawberry.type(description="A summarised topic close to the query: the first tier.")
class TopicHit:
    topic: Topic
    similarity: float = strawberry.field(description="Cosine similarity of the topic, 0-1.")
    label: str = strawberry.field(description='"Topic Summary: <name>".')
    summary: str
    detail_level: DetailLevel = strawberry.field(description="SUMMARY: consolidated knowledge.")

    @classmethod
    def from_domain(cls, hit: retrieval.TopicHit) -> TopicHit:
        return cls(
            topic=Topic.from_domain(hit.topic),
            similarity=hit.similarity,
            label=f"Topic Summary: {hit.topic.name}",
            summary=hit.topic.summary or "",
            detail_level=DetailLevel.SUMMARY,
        )


@strawberry.type(
    description=(
        "Seed 004's two tiers, in reading order: `topics` (summaries, compact and"
        " current) first, then `hits` (thoughts with the details summaries compress;"
        " empty at detailLevel SUMMARY)."
    )
)
class TieredSearch:
    detail_level: DetailLevel
    topics: list[TopicHit]
    hits: list[SearchHit]

    @classmethod
    def from_domain(cls, result: retrieval.TieredResult) -> TieredSearch:
        return cls(
            detail_level=result.detail_level,
            topics=[TopicHit.from_domain(t) for t in result.topics],
            hits=[SearchHit.from_domain(h) for h in result.thoughts],
        )
