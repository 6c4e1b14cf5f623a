"""The domain enums, registered as GraphQL enums (values are the member names).

Resolvers and inputs use the domain classes directly; importing them from here makes
sure they are registered before the schema is built.
"""

from __future__ import annotations

import strawberry

from thoughtgraph.domain.changes import ChangeKind, SubjectKind
from thoughtgraph.domain.knowledge import ContradictionStatus, Resolution, RunStatus
from thoughtgraph.domain.models import LineageRelation, ThoughtKind, ThoughtState, ThoughtType
from thoughtgraph.domain.scopes import Scope

strawberry.enum(
    ThoughtType,
    description="How a thought came to be: on its own, refining one, or consolidating many.",
)
strawberry.enum(
    LineageRelation,
    description="The edge from a newer thought to one of its sources.",
)
strawberry.enum(ChangeKind, description="What a change-log event recorded.")
strawberry.enum(SubjectKind, description="The kind of node a change-log event is about.")
strawberry.enum(ThoughtKind, description="What a thought is about.")
strawberry.enum(ThoughtState, description="Active, or forgotten (restorable until purged).")
strawberry.enum(ContradictionStatus, description="Whether a contradiction awaits a decision.")
strawberry.enum(Resolution, description="How a contradiction was decided.")
strawberry.enum(RunStatus, description="Where a consolidation run is.")
strawberry.enum(
    Scope,
    description=(
        "Whose memory a thought is: PRIVATE (one user's, seen only through that user's"
        " keys), SHARED (the namespace's project) or SYSTEM (read by all, written by admins)."
    ),
)

__all__ = [
    "ChangeKind",
    "ContradictionStatus",
    "LineageRelation",
    "Resolution",
    "RunStatus",
    "Scope",
    "SubjectKind",
    "ThoughtKind",
    "ThoughtState",
    "ThoughtType",
]
