"""Input types of thoughts, mapped onto the service's ``ThoughtInput`` and filter."""

from __future__ import annotations

from datetime import UTC, datetime

import strawberry

from thoughtgraph.api.graphql.enums import ThoughtKind, ThoughtState, ThoughtType
from thoughtgraph.domain.models import DEFAULT_NAMESPACE, ThoughtFilter
from thoughtgraph.domain.retrieval import SearchFilter
from thoughtgraph.domain.scopes import Scope
from thoughtgraph.features.thoughts.service import ThoughtInput


def datetime_to_ms(value: datetime) -> int:
    """Epoch milliseconds; a DateTime without an offset is taken as UTC (as shown)."""
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return int(value.timestamp() * 1000)


def optional_ms(value: datetime | None) -> int | None:
    return datetime_to_ms(value) if value is not None else None


@strawberry.input(description="Narrow a thought listing; every given field must match.")
class ThoughtFilterInput:
    type: ThoughtType | None = None
    tag: str | None = None
    agent_id: str | None = None
    kind: ThoughtKind | None = None
    topic_id: strawberry.ID | None = None

    def to_domain(self) -> ThoughtFilter:
        return ThoughtFilter(
            type=self.type,
            tag=self.tag,
            agent_id=self.agent_id,
            kind=self.kind,
            topic_id=self.topic_id,
        )


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
    kind: ThoughtKind | None = strawberry.field(default=None, description="FACT unless given.")
    salience: float | None = strawberry.field(
        default=None, description="0 to 1: how much it matters for later work (0.5)."
    )
    importance: int | None = strawberry.field(
        default=None, description="1 to 5: forgetting spares important thoughts (3)."
    )
    pinned: bool | None = strawberry.field(default=None, description="Never forgotten (false).")
    category: str | None = None
    valid_from: datetime | None = strawberry.field(
        default=None, description="Since when it is true in the world (its creation)."
    )
    valid_to: datetime | None = strawberry.field(
        default=None, description="Until when it was true in the world (still true)."
    )
    scope: Scope | None = strawberry.field(
        default=None, description="Whose memory it is (the namespace's default scope)."
    )
    user_id: str | None = strawberry.field(
        default=None,
        description=(
            "The user a PRIVATE thought belongs to, in open local mode only: with an API"
            " key it is always the key's user."
        ),
    )
    about: str | None = strawberry.field(
        default=None,
        description=(
            "The user a person field (a category such as name, pronouns or city) is about"
            " (left out: a private thought's owner, else your key's user). Changing its"
            " current value waits for that person's consent (consentRequest)."
        ),
    )

    def to_thought_input(self) -> ThoughtInput:
        # An explicit null means the service's default, like a field left out.
        defaults = ThoughtInput(content="", agent_id="", agent_name="")
        return ThoughtInput(
            content=self.content,
            agent_id=self.agent_id,
            agent_name=self.agent_name,
            namespace=self.namespace,
            context=self.context,
            session_id=self.session_id,
            tags=tuple(self.tags or ()),
            kind=self.kind if self.kind is not None else defaults.kind,
            salience=self.salience if self.salience is not None else defaults.salience,
            importance=self.importance if self.importance is not None else defaults.importance,
            pinned=self.pinned if self.pinned is not None else defaults.pinned,
            category=self.category,
            valid_from_ms=optional_ms(self.valid_from),
            valid_to_ms=optional_ms(self.valid_to),
            scope=self.scope,
            owner_id=self.user_id,
            about=self.about,
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
    extract: bool = strawberry.field(
        default=False,
        description=(
            "Also split a long original into up to three facts, in the background (a model"
            " must be configured; offline the contribution is written as it is)."
        ),
    )


@strawberry.input(
    description=(
        "One original of a contributeMany batch (an original has no lineage edges: a"
        " `reason` is not stored)."
    )
)
class ContributeManyInput(_ThoughtFields):
    pass


@strawberry.input(description="A thought that refines (supersedes) one earlier thought.")
class RefineInput(_ThoughtFields):
    source_id: strawberry.ID


@strawberry.input(description="A thought that consolidates two or more earlier thoughts.")
class ConsolidateInput(_ThoughtFields):
    source_ids: list[strawberry.ID]


@strawberry.input(
    description=(
        "Narrows a search inside the store (every given field must match): tags all"
        " present, importance within the range, updated (written) in the window; states"
        " only matter in EXHAUSTIVE mode, the one that reaches forgotten thoughts."
    )
)
class SearchFilterInput:
    kinds: list[ThoughtKind] | None = None
    categories: list[str] | None = None
    tags: list[str] | None = None
    agent_id: str | None = None
    importance_min: int | None = None
    importance_max: int | None = None
    pinned: bool | None = None
    updated_after: datetime | None = None
    updated_before: datetime | None = None
    states: list[ThoughtState] | None = None

    def to_domain(self, *, current_only: bool = False) -> SearchFilter:
        return SearchFilter(
            kinds=tuple(self.kinds or ()),
            categories=tuple(self.categories or ()),
            tags=tuple(self.tags or ()),
            agent_id=self.agent_id,
            importance_min=self.importance_min,
            importance_max=self.importance_max,
            pinned=self.pinned,
            updated_after_ms=optional_ms(self.updated_after),
            updated_before_ms=optional_ms(self.updated_before),
            states=tuple(self.states or ()),
            current_only=current_only,
        )
