"""The retrieval enums and a hit's score explanation, as GraphQL types (no dependency on
the thought types, which use them)."""

from __future__ import annotations

import strawberry

from thoughtgraph.domain import retrieval

strawberry.enum(
    retrieval.RetrievalMode,
    description=(
        "Which retention tiers a search reaches: REFLEXIVE hot; STANDARD hot and warm;"
        " DEEP and cold; EXHAUSTIVE and archived and forgotten (audit)."
    ),
)
strawberry.enum(
    retrieval.RetentionTier,
    description="How alive a thought is, from its retention score (half-life decay and use).",
)
strawberry.enum(
    retrieval.DetailLevel,
    description="SUMMARY: topic summaries only; FULL: topic summaries, then thoughts.",
)

RetrievalMode = retrieval.RetrievalMode
RetentionTier = retrieval.RetentionTier
DetailLevel = retrieval.DetailLevel


@strawberry.type(
    description=(
        "How a hit's score came about: score = min(1, relevance x priorFactor x"
        " lineageFactor) x supersessionFactor x kindFactor, priorFactor = 0.9 + 0.1 prior,"
        " prior ="
        " 0.35 salienceDecay + 0.30 usage + 0.15 pheromone + 0.20 related."
    )
)
class SearchExplanation:
    vector_rank: int | None = strawberry.field(description="Rank among the vector candidates.")
    text_rank: int | None = strawberry.field(description="Rank among the full-text candidates.")
    text_score: float | None = strawberry.field(description="The engine's full-text score.")
    keyword_score: float = strawberry.field(
        description="BM25 of the query's words in this thought, scored by the service."
    )
    fusion: float = strawberry.field(
        description="Reciprocal rank fusion (k = 60) of the two lists, raw; reported, not scored."
    )
    relevance: float = strawberry.field(
        description=(
            "0.55 x the cosine scaled over the candidates (lowest 0, highest 1)"
            " + 0.45 x keywordScore scaled by the highest; 0-1."
        )
    )
    salience_decay: float = strawberry.field(description="salience x exp(-0.01 x age in days).")
    usage: float = strawberry.field(description="Retention times how much it was used, 0-1.")
    pheromone: float = strawberry.field(description="1 - 1/pheromoneWeight, 0-1.")
    related: float = strawberry.field(
        description="Strongest RELATED_TO link to another candidate, 0-1."
    )
    prior: float
    prior_factor: float
    lineage_factor: float = strawberry.field(
        description="0.7 when refined, 1.2 when it refines a refined hit, else 1."
    )
    supersession_factor: float = strawberry.field(
        description="The superseded rank factor when superseded, else 1."
    )
    kind_factor: float = strawberry.field(
        description="The insight rank factor for an insight (inferred about a person), else 1."
    )
    score: float

    @classmethod
    def from_domain(cls, e: retrieval.ScoreExplanation) -> SearchExplanation:
        return cls(**e.model_dump())
