"""Reading workflows and code patterns: one by id, or the newest of a kind."""

from __future__ import annotations

import strawberry

from thoughtgraph.api.graphql.enums import ThoughtKind
from thoughtgraph.api.graphql.procedures.types import Procedure
from thoughtgraph.api.graphql.request_context import Info
from thoughtgraph.domain.models import DEFAULT_NAMESPACE


async def resolve_procedure(
    info: Info, id: strawberry.ID, namespace: str = DEFAULT_NAMESPACE
) -> Procedure | None:
    found = await info.context.services.procedures.get(namespace, id, caller=info.context.principal)
    return Procedure.from_domain(found) if found is not None else None


async def resolve_procedures(
    info: Info,
    kind: ThoughtKind,
    namespace: str = DEFAULT_NAMESPACE,
    first: int | None = None,
    include_retired: bool = False,
) -> list[Procedure]:
    found = await info.context.services.procedures.listing(
        namespace,
        kind,
        first=first,
        include_retired=include_retired,
        caller=info.context.principal,
    )
    return [Procedure.from_domain(p) for p in found]


@strawberry.type
class ProcedureQuery:
    procedure = strawberry.field(
        resolver=resolve_procedure,
        description=(
            "A workflow or code pattern by id, in full (what a context hint expands to);"
            " null when there is none."
        ),
    )
    procedures = strawberry.field(
        resolver=resolve_procedures,
        description=(
            "The newest workflows (kind WORKFLOW) or code patterns (CODE_PATTERN), `first`"
            " 1 to 100 (20): current ones only unless `includeRetired` (superseded,"
            " refined)."
        ),
    )
