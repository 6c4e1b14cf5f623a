"""Output types of lineage: the traced chain and changes found by their reason."""

from __future__ import annotations

from datetime import datetime

import strawberry

from thoughtgraph.api.graphql.enums import LineageRelation, ThoughtType
from thoughtgraph.api.graphql.request_context import Info
from thoughtgraph.api.graphql.thoughts.types import Thought, load_thought
from thoughtgraph.domain import models


@strawberry.type(description="One thought of a lineage chain.")
class LineageNode:
    thought_id: strawberry.ID
    type: ThoughtType
    content_preview: str = strawberry.field(description="The first 80 characters.")
    contributor: str = strawberry.field(description="The contributing agent's name.")
    agent_id: str
    created_at: datetime
    source_ids: list[strawberry.ID]
    depth: int = strawberry.field(
        description="0 for the queried thought, negative for sources, positive for refinements."
    )

    @classmethod
    def from_domain(cls, node: models.LineageNode) -> LineageNode:
        return cls(
            thought_id=strawberry.ID(node.thought_id),
            type=node.type,
            content_preview=node.content_preview,
            contributor=node.contributor,
            agent_id=node.agent_id,
            created_at=models.ms_to_datetime(node.created_at_ms),
            source_ids=[strawberry.ID(sid) for sid in node.source_ids],
            depth=node.depth,
        )


@strawberry.type(description="A thought's lineage in both directions, up to maxDepth.")
class LineageResult:
    thought_id: strawberry.ID
    chain: list[LineageNode] = strawberry.field(description="Ordered by depth, then age.")
    truncated: bool = strawberry.field(description="True when lineage continues past maxDepth.")

    @classmethod
    def from_domain(cls, lineage: models.Lineage) -> LineageResult:
        return cls(
            thought_id=strawberry.ID(lineage.thought_id),
            chain=[LineageNode.from_domain(node) for node in lineage.chain],
            truncated=lineage.truncated,
        )


async def resolve_from(root: ChangeHit, info: Info) -> Thought | None:
    return await load_thought(info, root.namespace, root.from_id)


async def resolve_to(root: ChangeHit, info: Info) -> Thought | None:
    return await load_thought(info, root.namespace, root.to_id)


@strawberry.type(description="A refinement or consolidation found by the meaning of its reason.")
class ChangeHit:
    from_id: strawberry.ID = strawberry.field(description="The newer thought.")
    to_id: strawberry.ID = strawberry.field(description="The source it refines or consolidates.")
    relation: LineageRelation
    reason: str
    created_at: datetime
    score: float = strawberry.field(description="Cosine similarity of the reason to the query.")
    namespace: strawberry.Private[str]
    from_ = strawberry.field(
        resolver=resolve_from, name="from", description="The newer thought, loaded."
    )
    to = strawberry.field(resolver=resolve_to, description="The source it changed, loaded.")

    @classmethod
    def from_domain(cls, hit: models.LineageEdgeHit, namespace: str) -> ChangeHit:
        return cls(
            from_id=strawberry.ID(hit.from_id),
            to_id=strawberry.ID(hit.to_id),
            relation=hit.relation,
            reason=hit.reason,
            created_at=models.ms_to_datetime(hit.created_at_ms),
            score=hit.similarity,
            namespace=namespace,
        )
