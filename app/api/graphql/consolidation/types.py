"""Output types of consolidation runs."""

from __future__ import annotations

from datetime import datetime

import strawberry

from thoughtgraph.api.graphql.enums import RunStatus
from thoughtgraph.api.graphql.request_context import Info
from thoughtgraph.api.graphql.thoughts.types import Thought, load_thoughts, optional_datetime
from thoughtgraph.domain import knowledge, models
from thoughtgraph.domain import validation as check


@strawberry.type(description="What a run did (or, for a dry run, would have done).")
class RunCounts:
    candidates: int
    deduped: int
    assigned: int
    summarised: int
    superseded: int
    forgotten: int
    purged: int
    contradictions_found: int
    links: int
    pairs_judged: int

    @classmethod
    def from_domain(cls, counts: knowledge.RunCounts) -> RunCounts:
        return cls(**counts.model_dump())


@strawberry.type(description="The model calls a run made and what they cost.")
class RunUsage:
    llm_calls: int
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float

    @classmethod
    def from_domain(cls, usage: knowledge.RunUsage) -> RunUsage:
        return cls(**usage.model_dump())


async def resolve_run_merges(
    root: ConsolidationRun, info: Info, first: int | None = check.DEFAULT_PAGE_SIZE
) -> list[Thought]:
    ids = await info.context.loaders.run_merges.load((root.namespace, str(root.id), first))
    return await load_thoughts(info, root.namespace, ids)


@strawberry.type(description="One pass of maintenance over a namespace, queued to a worker.")
class ConsolidationRun:
    id: strawberry.ID
    namespace: str
    status: RunStatus
    dry_run: bool = strawberry.field(description="Counted what it would do, changed nothing.")
    trigger: str = strawberry.field(description="`api`, `schedule` or `cli`.")
    requested_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    duration_ms: int | None
    attempts: int
    counts: RunCounts
    usage: RunUsage
    error: str | None
    merges: list[Thought] = strawberry.field(
        resolver=resolve_run_merges,
        description=(
            "The consolidation thoughts this run's merges wrote, oldest first (`first` is 1 to"
            " 100); each names its `sources`. An undone merge's thought is SOFT_DELETED."
            " Runs before this field existed list none."
        ),
    )

    @classmethod
    def from_domain(cls, run: knowledge.ConsolidationRun) -> ConsolidationRun:
        return cls(
            id=strawberry.ID(run.id),
            namespace=run.namespace,
            status=run.status,
            dry_run=run.dry_run,
            trigger=run.trigger,
            requested_at=models.ms_to_datetime(run.requested_at_ms),
            started_at=optional_datetime(run.started_at_ms),
            finished_at=optional_datetime(run.finished_at_ms),
            duration_ms=run.duration_ms,
            attempts=run.attempts,
            counts=RunCounts.from_domain(run.counts),
            usage=RunUsage.from_domain(run.usage),
            error=run.error,
        )
