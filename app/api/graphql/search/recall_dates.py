"""Resolved relative dates as a GraphQL type, shared by ``Thought.resolvedDates`` and
``recall``. Kept apart from both so that neither imports the other."""

from __future__ import annotations

import datetime as dt
from typing import Any

import strawberry

from thoughtgraph.domain.language.temporal import Granularity, TemporalResolution, resolve

strawberry.enum(Granularity, description="The span a relative time expression names.")


@strawberry.type(
    description=(
        'A relative time expression in a thought\'s content ("yesterday", "last week")'
        " resolved against the day the thought was valid from (UTC)."
    )
)
class ResolvedDate:
    thought_id: strawberry.ID
    expression: str = strawberry.field(description="The expression as written.")
    start: int = strawberry.field(description="Where it starts in the content (characters).")
    end: int = strawberry.field(description="Where it ends in the content (exclusive).")
    date: dt.date = strawberry.field(description="The day it points at.")
    range_start: dt.date = strawberry.field(description="The first day of the span it names.")
    range_end: dt.date = strawberry.field(description="The last day of that span (inclusive).")
    granularity: Granularity

    @classmethod
    def from_domain(cls, thought_id: str, found: TemporalResolution) -> ResolvedDate:
        return cls(
            thought_id=strawberry.ID(thought_id),
            expression=found.expression,
            start=found.start,
            end=found.end,
            date=found.date,
            range_start=found.range_start,
            range_end=found.range_end,
            granularity=found.granularity,
        )


def resolve_resolved_dates(root: Any) -> list[ResolvedDate]:
    """A Thought's relative dates, resolved from its content and validFrom (its creation
    unless given): computed on read, never stored, so they follow the content."""
    anchor_ms = int(root.valid_from.timestamp() * 1000)
    return [ResolvedDate.from_domain(str(root.id), r) for r in resolve(root.content, anchor_ms)]
