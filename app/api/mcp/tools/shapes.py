"""What the tools answer: plain pydantic models (each tool's output schema), built from
the domain's. Times are ISO 8601 in UTC; enums are the domain's lowercase values."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, Self

from pydantic import BaseModel

from thoughtgraph.api.mcp.compact import day, listing, one_line, thought_line
from thoughtgraph.domain import models
from thoughtgraph.domain.consent import ConsentRequest, ConsentStatus
from thoughtgraph.domain.knowledge import Contradiction, ContradictionStatus, Resolution
from thoughtgraph.domain.models import ThoughtKind, ThoughtState, ThoughtType, ms_to_datetime
from thoughtgraph.domain.scopes import Scope


def iso(ms: int | None) -> str | None:
    return ms_to_datetime(ms).isoformat() if ms is not None else None


def epoch_ms(value: datetime | None) -> int | None:
    """Epoch milliseconds; a time without an offset is taken as UTC, as GraphQL does."""
    if value is None:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return int(value.timestamp() * 1000)


class Shape(BaseModel):
    @classmethod
    def copy_of(cls, source: object, **differing: Any) -> Self:
        """This shape of ``source``: each field read off its attribute of the same name,
        but for the ``differing`` ones (times, nested shapes, renamed fields)."""
        same = {name: getattr(source, name) for name in cls.model_fields if name not in differing}
        return cls(**same, **differing)


class ThoughtOut(Shape):
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
    scope: Scope
    owner_id: str | None
    about: str | None  # the user a person field is about

    @classmethod
    def of(cls, thought: models.Thought) -> ThoughtOut:
        return cls.copy_of(
            thought,
            created_at=iso(thought.created_at_ms),
            valid_from=iso(thought.effective_valid_from_ms),
            valid_to=iso(thought.valid_to_ms),
            superseded_at=iso(thought.superseded_at_ms),
        )

    def line(self, *, superseded: bool = False, suffix: str = "") -> str:
        return thought_line(
            self.id,
            self.kind,
            self.valid_from,
            self.content,
            superseded=superseded or self.superseded_at is not None,
            forgotten=self.state is ThoughtState.SOFT_DELETED,
            valid_to=self.valid_to,
            suffix=suffix,
        )

    def as_text(self) -> str:
        return self.line()


class HeldOut(Shape):
    """The consent request a contribution became (consent_requests lists it in full)."""

    id: str
    status: ConsentStatus
    person: str  # the user it is about: the one whose key approves it
    field: str


class ContributionOut(BaseModel):
    thought: ThoughtOut
    guidance: models.Guidance | None = None
    # Set when the thought would change a field about a person: held, not written.
    consent_request: HeldOut | None = None
    extraction_queued: bool = False  # extract: splitting it into facts was queued

    @classmethod
    def of(cls, contribution: models.Contribution) -> ContributionOut:
        held: ConsentRequest | None = contribution.consent_request
        return cls(
            thought=ThoughtOut.of(contribution.thought),
            guidance=contribution.guidance,
            consent_request=HeldOut.copy_of(held) if held is not None else None,
            extraction_queued=contribution.extraction_queued,
        )

    def as_text(self) -> str:
        if self.consent_request is not None:
            held = self.consent_request
            head = f"held for consent ({held.field} of {held.person}): request {held.id}"
        else:
            head = "stored: " + self.thought.line()
        notes = [head]
        if self.guidance is not None:
            notes.append(f"note: {self.guidance.message} ({self.guidance.similar_thought_id})")
        if self.extraction_queued:
            notes.append("fact extraction queued")
        return "\n".join(notes)


class SearchHitOut(Shape):
    thought: ThoughtOut
    similarity: float  # the raw cosine similarity
    score: float  # after the lineage and supersession adjustments
    superseded: bool
    refined_by: str | None
    superseded_by: str | None

    @classmethod
    def of(cls, hit: models.SearchHit) -> SearchHitOut:
        return cls.copy_of(hit, thought=ThoughtOut.of(hit.thought))

    def line(self) -> str:
        return self.thought.line(superseded=self.superseded, suffix=f"score {self.score:.2f}")


class SearchOut(BaseModel):
    hits: list[SearchHitOut]

    @classmethod
    def of(cls, hits: Sequence[models.SearchHit]) -> SearchOut:
        return cls(hits=[SearchHitOut.of(hit) for hit in hits])

    def as_text(self) -> str:
        return listing("hits", (hit.line() for hit in self.hits))


class LineageNodeOut(Shape):
    thought_id: str
    depth: int  # sources negative, refinements positive, the thought itself 0
    type: ThoughtType
    content_preview: str
    contributor: str
    agent_id: str
    created_at: str | None
    source_ids: list[str]


class LineageOut(Shape):
    thought_id: str
    truncated: bool
    chain: list[LineageNodeOut]

    @classmethod
    def of(cls, lineage: models.Lineage) -> LineageOut:
        chain = [
            LineageNodeOut.copy_of(node, created_at=iso(node.created_at_ms))
            for node in lineage.chain
        ]
        return cls.copy_of(lineage, chain=chain)

    def as_text(self) -> str:
        lines = (
            f"{node.depth:+d} {node.thought_id} {node.type} {day(node.created_at)} "
            f"{one_line(node.content_preview)}"
            for node in sorted(self.chain, key=lambda node: node.depth)
        )
        header = f"lineage of {self.thought_id}" + (" (truncated)" if self.truncated else "")
        return listing(header, lines)


class ContradictionOut(Shape):
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
        return cls.copy_of(
            found, detected_at=iso(found.detected_at_ms), resolved_at=iso(found.resolved_at_ms)
        )

    def as_text(self) -> str:
        decided = f" {self.resolution}" if self.resolution else ""
        return (
            f"{self.id} {self.status}{decided} {day(self.detected_at)}: "
            f"{self.thought_a_id} (older) vs {self.thought_b_id} (newer), {self.relation} "
            f"{self.confidence:.2f}: {one_line(self.explanation)}"
        )


class ContradictionsOut(BaseModel):
    contradictions: list[ContradictionOut]

    def as_text(self) -> str:
        return listing("contradictions", (found.as_text() for found in self.contradictions))
