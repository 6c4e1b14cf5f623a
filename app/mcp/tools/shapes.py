"""What the tools answer: plain pydantic models (each tool's output schema), built from
the domain's. Times are ISO 8601 in UTC; enums are the domain's lowercase values."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from pydantic import BaseModel

from app.domain import models
from app.domain.knowledge import Contradiction, ContradictionStatus, Resolution
from app.domain.models import ThoughtKind, ThoughtState, ThoughtType


def iso(ms: int | None) -> str | None:
    return datetime.fromtimestamp(ms / 1000, tz=UTC).isoformat() if ms is not None else None


def epoch_ms(value: datetime | None) -> int | None:
    """Epoch milliseconds; a time without an offset is taken as UTC, as GraphQL does."""
    if value is None:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return int(value.timestamp() * 1000)


class ThoughtOut(BaseModel):
    id: str
    namespace: str
    type: ThoughtType
    kind: ThoughtKind
    content: str
    agent_id: str
    agent_name: str
    context: str | None
    tags: list[str]
    category: str | None
    salience: float
    importance: int
    pinned: bool
    state: ThoughtState
    pheromone_weight: float
    source_ids: list[str]
    revision: int
    created_at: str | None
    valid_from: str | None
    valid_to: str | None
    superseded_at: str | None
    superseded_by: str | None

    @classmethod
    def of(cls, thought: models.Thought) -> ThoughtOut:
        return cls(
            id=thought.id,
            namespace=thought.namespace,
            type=thought.type,
            kind=thought.kind,
            content=thought.content,
            agent_id=thought.agent_id,
            agent_name=thought.agent_name,
            context=thought.context,
            tags=list(thought.tags),
            category=thought.category,
            salience=thought.salience,
            importance=thought.importance,
            pinned=thought.pinned,
            state=thought.state,
            pheromone_weight=thought.pheromone_weight,
            source_ids=list(thought.source_ids),
            revision=thought.revision,
            created_at=iso(thought.created_at_ms),
            valid_from=iso(thought.effective_valid_from_ms),
            valid_to=iso(thought.valid_to_ms),
            superseded_at=iso(thought.superseded_at_ms),
            superseded_by=thought.superseded_by,
        )


class GuidanceOut(BaseModel):
    similar_thought_id: str
    similarity: float
    message: str


class ContributionOut(BaseModel):
    thought: ThoughtOut
    guidance: GuidanceOut | None = None

    @classmethod
    def of(cls, contribution: models.Contribution) -> ContributionOut:
        guidance = contribution.guidance
        return cls(
            thought=ThoughtOut.of(contribution.thought),
            guidance=GuidanceOut(**guidance.model_dump()) if guidance else None,
        )


class SearchHitOut(BaseModel):
    thought: ThoughtOut
    similarity: float  # the raw cosine similarity
    score: float  # after the lineage and supersession adjustments
    superseded: bool
    refined_by: str | None
    superseded_by: str | None


class SearchOut(BaseModel):
    hits: list[SearchHitOut]

    @classmethod
    def of(cls, hits: Sequence[models.SearchHit]) -> SearchOut:
        return cls(
            hits=[
                SearchHitOut(
                    thought=ThoughtOut.of(hit.thought),
                    similarity=hit.similarity,
                    score=hit.score,
                    superseded=hit.superseded,
                    refined_by=hit.refined_by,
                    superseded_by=hit.superseded_by,
                )
                for hit in hits
            ]
        )


class LineageNodeOut(BaseModel):
    thought_id: str
    depth: int  # sources negative, refinements positive, the thought itself 0
    type: ThoughtType
    content_preview: str
    contributor: str
    agent_id: str
    created_at: str | None
    source_ids: list[str]


class LineageOut(BaseModel):
    thought_id: str
    truncated: bool
    chain: list[LineageNodeOut]

    @classmethod
    def of(cls, lineage: models.Lineage) -> LineageOut:
        return cls(
            thought_id=lineage.thought_id,
            truncated=lineage.truncated,
            chain=[
                LineageNodeOut(
                    thought_id=node.thought_id,
                    depth=node.depth,
                    type=node.type,
                    content_preview=node.content_preview,
                    contributor=node.contributor,
                    agent_id=node.agent_id,
                    created_at=iso(node.created_at_ms),
                    source_ids=list(node.source_ids),
                )
                for node in lineage.chain
            ],
        )


class ContradictionOut(BaseModel):
    id: str
    namespace: str
    status: ContradictionStatus
    relation: str
    thought_a_id: str  # the older
    thought_b_id: str  # the newer
    detector: str
    confidence: float
    explanation: str
    detected_at: str | None
    resolution: Resolution | None
    note: str | None
    resolved_by: str | None
    resolved_at: str | None
    merged_thought_id: str | None

    @classmethod
    def of(cls, found: Contradiction) -> ContradictionOut:
        return cls(
            id=found.id,
            namespace=found.namespace,
            status=found.status,
            relation=found.relation,
            thought_a_id=found.thought_a_id,
            thought_b_id=found.thought_b_id,
            detector=found.detector,
            confidence=found.confidence,
            explanation=found.explanation,
            detected_at=iso(found.detected_at_ms),
            resolution=found.resolution,
            note=found.note,
            resolved_by=found.resolved_by,
            resolved_at=iso(found.resolved_at_ms),
            merged_thought_id=found.merged_thought_id,
        )


class ContradictionsOut(BaseModel):
    contradictions: list[ContradictionOut]
