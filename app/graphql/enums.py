"""The domain enums, registered as GraphQL enums (values are the member names).

Resolvers and inputs use the domain classes directly; importing them from here makes
sure they are registered before the schema is built.
"""

from __future__ import annotations

import strawberry

from app.domain.models import ChangeKind, LineageRelation, ThoughtType

strawberry.enum(
    ThoughtType,
    description="How a thought came to be: on its own, refining one, or consolidating many.",
)
strawberry.enum(
    LineageRelation,
    description="The edge from a newer thought to one of its sources.",
)
strawberry.enum(ChangeKind, description="What a change-log event recorded.")

__all__ = ["ChangeKind", "LineageRelation", "ThoughtType"]
