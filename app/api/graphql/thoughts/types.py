"""Output types of thoughts: the node, its connection, search hits, contributions, and the
topic a thought belongs to."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import strawberry

from thoughtgraph.api.graphql.enums import Scope, ThoughtKind, ThoughtState, ThoughtType
from thoughtgraph.api.graphql.request_context import Info
from thoughtgraph.api.graphql.search.explain import DetailLevel, RetentionTier, SearchExplanation
from thoughtgraph.api.graphql.search.recall_dates import ResolvedDate, resolve_resolved_dates
from thoughtgraph.domain import knowledge, models
from thoughtgraph.domain.retrieval import RankedHit
from thoughtgraph.domain.validation import MAX_REFINEMENTS
from thoughtgraph.features.thoughts.browse import encode_cursor


def optional_datetime(epoch_ms: int | None) -> datetime | None:
    return models.ms_to_datetime(epoch_ms) if epoch_ms is not None else None


async def load_thought(info: Info, namespace: str, thought_id: str) -> Thought | None:
    """One thought through this request's loader, or None when it does not exist."""
    found = await info.context.loaders.thoughts.load((namespace, thought_id))
    return Thought.from_domain(found) if found is not None else None


async def load_thoughts(info: Info, namespace: str, thought_ids: Sequence[str]) -> list[Thought]:
    """Thoughts in the given order through this request's loader; missing ones skipped."""
    if not thought_ids:
        return []
    loaded = await info.context.loaders.thoughts.load_many(
        [(namespace, thought_id) for thought_id in thought_ids]
    )
    return [Thought.from_domain(found) for found in loaded if found is not None]


async def resolve_sources(root: Thought, info: Info) -> list[Thought]:
    return await load_thoughts(info, root.namespace, root.source_ids)


async def resolve_refinements(root: Thought, info: Info) -> list[Thought]:
    refiner_ids = await info.context.loaders.refiners.load((root.namespace, root.id))
    return await load_thoughts(info, root.namespace, refiner_ids[:MAX_REFINEMENTS])


async def resolve_refined_by(root: Thought, info: Info) -> Thought | None:
    refiner_ids = await info.context.loaders.refiners.load((root.namespace, root.id))
    return await load_thought(info, root.namespace, refiner_ids[0]) if refiner_ids else None


async def resolve_superseded(root: Thought, info: Info) -> bool:
    if root.superseded_at is not None:
        return True  # retired by a SUPERSEDES edge: no need to look for refiners
    return bool(await info.context.loaders.refiners.load((root.namespace, root.id)))


async def resolve_superseded_by(root: Thought, info: Info) -> Thought | None:
    if root.superseded_by_id is None:
        return None
    return await load_thought(info, root.namespace, root.superseded_by_id)


async def resolve_topic(root: Thought, info: Info) -> Topic | None:
    if root.topic_id is None:
        return None
    found = await info.context.loaders.topics.load((root.namespace, root.topic_id))
    return Topic.from_domain(found) if found is not None else None


@strawberry.type(description="One unit of knowledge an agent contributed.")
class Thought:
    id: strawberry.ID
    namespace: str
    type: ThoughtType
    content: str
    agent_id: str
    agent_name: str
    context: str | None
    session_id: str | None
    tags: list[str]
    pheromone_weight: float
    created_at: datetime = strawberry.field(description="When it was contributed (UTC).")
    revision: int = strawberry.field(
        description="The namespace revision that created it: strictly increasing."
    )
    source_ids: list[strawberry.ID] = strawberry.field(
        description="What it refines or consolidates; empty for an original."
    )
    sources = strawberry.field(
        resolver=resolve_sources, description="The thoughts this one refines or consolidates."
    )
    refinements = strawberry.field(
        resolver=resolve_refinements,
        description=(
            f"Thoughts refining or consolidating this one, newest first (at most "
            f"{MAX_REFINEMENTS})."
        ),
    )
    refined_by = strawberry.field(
        resolver=resolve_refined_by,
        description="The newest thought refining or consolidating this one.",
    )
    superseded = strawberry.field(
        resolver=resolve_superseded,
        description="True once another thought refines, consolidates or supersedes it.",
    )
    kind: ThoughtKind
    salience: float = strawberry.field(description="0 to 1: how much it matters for later work.")
    importance: int = strawberry.field(description="1 to 5: forgetting spares important ones.")
    pinned: bool = strawberry.field(description="Pinned thoughts are never forgotten.")
    category: str | None
    last_accessed_at: datetime | None = strawberry.field(
        description="When a search last returned it (recorded within about a second)."
    )
    access_count: int
    cite_count: int = strawberry.field(description="Times agents cited it (cite).")
    ignore_count: int = strawberry.field(
        description="Times agents were given it and did not use it (ignore)."
    )
    last_cited_at: datetime | None
    state: ThoughtState
    purge_at: datetime | None = strawberry.field(
        description="When a forgotten thought is purged for good; null while active."
    )
    valid_from: datetime = strawberry.field(
        description="Since when it is true in the world: its creation unless given."
    )
    valid_to: datetime | None = strawberry.field(
        description="Until when it was true in the world; null while still true."
    )
    superseded_at: datetime | None = strawberry.field(
        description="When a newer thought superseded it; null while current."
    )
    superseded_by = strawberry.field(
        resolver=resolve_superseded_by, description="The thought that superseded it."
    )
    topic_id: strawberry.ID | None
    topic = strawberry.field(resolver=resolve_topic, description="The topic it belongs to.")
    episode_id: strawberry.ID | None = strawberry.field(
        description="The episode it was extracted from, if any."
    )
    resolved_dates: list[ResolvedDate] = strawberry.field(
        resolver=resolve_resolved_dates,
        description=(
            'Relative time expressions in the content ("yesterday", "last week", "on'
            ' Tuesday") resolved against validFrom, in the order they appear.'
        ),
    )
    scope: Scope = strawberry.field(description="Whose memory it is.")
    owner_id: str | None = strawberry.field(
        description="The user a PRIVATE thought belongs to; null for the other scopes."
    )
    about: str | None = strawberry.field(description="The user a person field is about.")
    superseded_by_id: strawberry.Private[str | None]

    @classmethod
    def from_domain(cls, thought: models.Thought) -> Thought:
        return cls(
            id=strawberry.ID(thought.id),
            namespace=thought.namespace,
            type=thought.type,
            content=thought.content,
            agent_id=thought.agent_id,
            agent_name=thought.agent_name,
            context=thought.context,
            session_id=thought.session_id,
            tags=list(thought.tags),
            pheromone_weight=thought.pheromone_weight,
            created_at=models.ms_to_datetime(thought.created_at_ms),
            revision=thought.revision,
            source_ids=[strawberry.ID(sid) for sid in thought.source_ids],
            kind=thought.kind,
            salience=thought.salience,
            importance=thought.importance,
            pinned=thought.pinned,
            category=thought.category,
            last_accessed_at=optional_datetime(thought.last_accessed_at_ms),
            access_count=thought.access_count,
            cite_count=thought.cite_count,
            ignore_count=thought.ignore_count,
            last_cited_at=optional_datetime(thought.last_cited_at_ms),
            state=thought.state,
            purge_at=optional_datetime(thought.purge_at_ms),
            valid_from=models.ms_to_datetime(thought.effective_valid_from_ms),
            valid_to=optional_datetime(thought.valid_to_ms),
            superseded_at=optional_datetime(thought.superseded_at_ms),
            topic_id=strawberry.ID(thought.topic_id) if thought.topic_id else None,
            episode_id=strawberry.ID(thought.episode_id) if thought.episode_id else None,
            superseded_by_id=thought.superseded_by,
            scope=thought.scope,
            owner_id=thought.owner_id,
            about=thought.about,
        )


@strawberry.type
class ThoughtEdge:
    cursor: str
    node: Thought


@strawberry.type
class PageInfo:
    has_next_page: bool
    end_cursor: str | None


@strawberry.type(description="Thoughts newest first, paged with opaque cursors.")
class ThoughtConnection:
    edges: list[ThoughtEdge]
    nodes: list[Thought]
    page_info: PageInfo

    @classmethod
    def from_page(cls, page: models.ThoughtPage) -> ThoughtConnection:
        nodes = [Thought.from_domain(thought) for thought in page.thoughts]
        edges = [
            ThoughtEdge(cursor=encode_cursor(thought), node=node)
            for thought, node in zip(page.thoughts, nodes, strict=True)
        ]
        return cls(
            edges=edges,
            nodes=nodes,
            page_info=PageInfo(
                has_next_page=page.has_next_page,
                end_cursor=edges[-1].cursor if edges else None,
            ),
        )


@strawberry.type(
    description=(
        "A search result: hybrid (full-text and vector) unless hybrid: false, marked"
        " and re-ranked by lineage and supersession."
    )
)
class SearchHit:
    thought: Thought
    id: strawberry.ID
    score: float = strawberry.field(
        description="0-1, after fusion, priors and the lineage and supersession adjustments."
    )
    similarity: float = strawberry.field(description="Cosine similarity to the query.")
    pheromone_weight: float
    tags: list[str]
    refined_by: strawberry.ID | None = strawberry.field(
        description="The newest thought refining or consolidating this one."
    )
    superseded: bool = strawberry.field(
        description="Refined, consolidated or superseded: ranked below what replaced it."
    )
    superseded_by: strawberry.ID | None = strawberry.field(
        description="The thought that supersedes this one, if one does."
    )
    retention: float = strawberry.field(
        description="Retention score, 0-1: half-life decay since last use, boosted by use."
    )
    tier: RetentionTier
    label: str = strawberry.field(description='What it is, for a reader: "Thought [decision]".')
    detail_level: DetailLevel = strawberry.field(description="FULL: the thought's own content.")
    explain: SearchExplanation | None = strawberry.field(
        description="The components of the score (hybrid search only)."
    )

    @classmethod
    def from_domain(cls, hit: models.SearchHit) -> SearchHit:
        ranked = hit if isinstance(hit, RankedHit) else RankedHit(**hit.model_dump())
        return cls(
            thought=Thought.from_domain(hit.thought),
            id=strawberry.ID(hit.thought.id),
            score=hit.score,
            similarity=hit.similarity,
            pheromone_weight=hit.thought.pheromone_weight,
            tags=list(hit.thought.tags),
            refined_by=strawberry.ID(hit.refined_by) if hit.refined_by is not None else None,
            superseded=hit.superseded,
            superseded_by=strawberry.ID(hit.superseded_by) if hit.superseded_by else None,
            retention=ranked.retention,
            tier=ranked.tier,
            label=f"Thought [{hit.thought.kind.value}]",
            detail_level=DetailLevel.FULL,
            explain=(
                SearchExplanation.from_domain(ranked.explanation)
                if ranked.explanation is not None
                else None
            ),
        )


@strawberry.type(description="A thought consolidation linked as related, and how strongly.")
class RelatedThought:
    thought: Thought
    strength: float = strawberry.field(description="The similarity the link was made at.")


# A thought names its topic and a topic lists its thoughts: the two types live together.
MEMBERS_FIRST = 20  # an explicit null means this default; cost.py sizes `thoughts` by it


async def resolve_topic_thoughts(
    root: Topic, info: Info, first: int | None = MEMBERS_FIRST
) -> list[Thought]:
    size = MEMBERS_FIRST if first is None else first
    members = await info.context.services.topics.members(
        root.namespace, str(root.id), size, caller=info.context.principal
    )
    for member in members:
        info.context.loaders.thoughts.prime((root.namespace, member.id), member)
    return [Thought.from_domain(member) for member in members]


@strawberry.type(description="Thoughts close in meaning, gathered under a name and a summary.")
class Topic:
    id: strawberry.ID
    namespace: str
    name: str
    summary: str | None = strawberry.field(
        description="Written once enough new thoughts gathered; null until then."
    )
    thought_count: int
    unsummarised_count: int = strawberry.field(
        description="Thoughts that joined since the summary was written."
    )
    created_at: datetime
    updated_at: datetime
    summarised_at: datetime | None
    thoughts = strawberry.field(
        resolver=resolve_topic_thoughts,
        description=(
            "Its current thoughts (not forgotten or superseded), newest first; `first` is 1 to 100."
        ),
    )

    @classmethod
    def from_domain(cls, topic: knowledge.Topic) -> Topic:
        return cls(
            id=strawberry.ID(topic.id),
            namespace=topic.namespace,
            name=topic.name,
            summary=topic.summary,
            thought_count=topic.thought_count,
            unsummarised_count=topic.unsummarised_count,
            created_at=models.ms_to_datetime(topic.created_at_ms),
            updated_at=models.ms_to_datetime(topic.updated_at_ms),
            summarised_at=optional_datetime(topic.summarised_at_ms),
        )
