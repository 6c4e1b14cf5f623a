"""Asking for maintenance (a consolidation run, a contradiction scan) and undoing a merge."""

from __future__ import annotations

import strawberry

from thoughtgraph.api.graphql.consolidation.types import ConsolidationRun
from thoughtgraph.api.graphql.request_context import Info
from thoughtgraph.api.graphql.thoughts.types import Thought
from thoughtgraph.domain.models import DEFAULT_NAMESPACE
from thoughtgraph.features.access import actor_of


async def resolve_run_consolidation(
    info: Info, namespace: str = DEFAULT_NAMESPACE, dry_run: bool | None = False
) -> ConsolidationRun:
    run = await info.context.services.consolidation.request(
        namespace,
        dry_run=bool(dry_run),
        trigger="api",
        caller=info.context.principal,
    )
    return ConsolidationRun.from_domain(run)


async def resolve_scan_contradictions(info: Info, namespace: str = DEFAULT_NAMESPACE) -> bool:
    await info.context.services.consolidation.request_scan(namespace, caller=info.context.principal)
    return True


async def resolve_undo_consolidation(
    info: Info, thought_id: strawberry.ID, namespace: str = DEFAULT_NAMESPACE
) -> list[Thought]:
    restored = await info.context.services.merging.undo(
        namespace, thought_id, actor_of(info.context.principal), caller=info.context.principal
    )
    return [Thought.from_domain(thought) for thought in restored]


@strawberry.type
class ConsolidationMutation:
    run_consolidation = strawberry.mutation(
        resolver=resolve_run_consolidation,
        description=(
            "Queue a consolidation run (dedupe, topics, summaries, supersession, forgetting)"
            " and return it, QUEUED; follow it with consolidationRun(id)."
        ),
    )
    scan_contradictions = strawberry.mutation(
        resolver=resolve_scan_contradictions,
        description=(
            "Queue a contradiction scan of the namespace's recent thoughts: true once queued."
        ),
    )
    undo_consolidation = strawberry.mutation(
        resolver=resolve_undo_consolidation,
        description=(
            "Undo a merge consolidation made: its sources become current again and the"
            " merged thought is forgotten. Returns the restored sources; INVALID_STATE"
            " when the thought is not an active merge."
        ),
    )
