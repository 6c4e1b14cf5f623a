"""Reading consolidation runs: the newest, or one by id."""

from __future__ import annotations

import strawberry

from thoughtgraph.api.graphql.consolidation.types import ConsolidationRun
from thoughtgraph.api.graphql.request_context import Info
from thoughtgraph.domain import validation as check
from thoughtgraph.domain.models import DEFAULT_NAMESPACE

PAGE_SIZE = check.DEFAULT_PAGE_SIZE  # shown in the schema; an explicit null means it too


async def resolve_consolidation_runs(
    info: Info, namespace: str = DEFAULT_NAMESPACE, first: int | None = PAGE_SIZE
) -> list[ConsolidationRun]:
    runs = await info.context.services.consolidation.runs(
        namespace, first, caller=info.context.principal
    )
    return [ConsolidationRun.from_domain(run) for run in runs]


async def resolve_consolidation_run(
    info: Info, id: strawberry.ID, namespace: str = DEFAULT_NAMESPACE
) -> ConsolidationRun | None:
    found = await info.context.services.consolidation.run(
        namespace, id, caller=info.context.principal
    )
    return ConsolidationRun.from_domain(found) if found is not None else None


@strawberry.type
class ConsolidationQuery:
    consolidation_runs = strawberry.field(
        resolver=resolve_consolidation_runs,
        description="Consolidation runs, most recently requested first; `first` is 1 to 100.",
    )
    consolidation_run = strawberry.field(
        resolver=resolve_consolidation_run,
        description="One consolidation run, or null when the namespace has no such id.",
    )
