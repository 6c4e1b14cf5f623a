"""Input types of thoughts, mapped onto the service's ``ThoughtInput`` and filter."""

from __future__ import annotations

import strawberry

from app.domain.models import DEFAULT_NAMESPACE, ThoughtFilter
from app.graphql.enums import ThoughtType
from app.services.thoughts import ThoughtInput


@strawberry.input(description="Narrow a thought listing; every given field must match.")
class ThoughtFilterInput:
    type: ThoughtType | None = None
    tag: str | None = None
    agent_id: str | None = None

    def to_domain(self) -> ThoughtFilter:
        return ThoughtFilter(type=self.type, tag=self.tag, agent_id=self.agent_id)


@strawberry.input
class _ThoughtFields:
    """What every contribution carries, whatever its kind."""

    content: str
    agent_id: str
    agent_name: str
    context: str | None = None
    session_id: str | None = None
    tags: list[str] | None = strawberry.field(default_factory=list)
    namespace: str = DEFAULT_NAMESPACE
    reason: str | None = strawberry.field(
        default=None, description="Why: stored on the lineage edges, searchable by meaning."
    )

    def to_thought_input(self) -> ThoughtInput:
        return ThoughtInput(
            content=self.content,
            agent_id=self.agent_id,
            agent_name=self.agent_name,
            namespace=self.namespace,
            context=self.context,
            session_id=self.session_id,
            tags=tuple(self.tags or ()),
        )


@strawberry.input(
    description=(
        "A contribution in the /memory shape: an original, or a refinement when `refines`"
        " is given, or a consolidation when `consolidates` is; never both."
    )
)
class ContributeInput(_ThoughtFields):
    refines: strawberry.ID | None = None
    consolidates: list[strawberry.ID] | None = None


@strawberry.input(description="A thought that refines (supersedes) one earlier thought.")
class RefineInput(_ThoughtFields):
    source_id: strawberry.ID


@strawberry.input(description="A thought that consolidates two or more earlier thoughts.")
class ConsolidateInput(_ThoughtFields):
    source_ids: list[strawberry.ID]
