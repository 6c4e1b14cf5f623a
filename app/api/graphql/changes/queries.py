"""Reading the change log: one thought's history, or everything after a revision."""

from __future__ import annotations

import strawberry

from thoughtgraph.api.graphql.changes.types import ChangeEvent, ChangesPage
from thoughtgraph.api.graphql.request_context import Info
from thoughtgraph.domain import validation as check
from thoughtgraph.domain.models import DEFAULT_NAMESPACE

CHANGES_LIMIT = check.DEFAULT_CHANGES  # shown in the schema; an explicit null means it too


async def resolve_history(
    info: Info, thought_id: strawberry.ID, namespace: str = DEFAULT_NAMESPACE
) -> list[ChangeEvent]:
    events = await info.context.services.history.history(
        namespace, thought_id, caller=info.context.principal
    )
    return [ChangeEvent.from_domain(event) for event in events]


async def resolve_changes(
    info: Info,
    namespace: str = DEFAULT_NAMESPACE,
    after_revision: int | None = 0,
    limit: int | None = CHANGES_LIMIT,
) -> ChangesPage:
    history = info.context.services.history
    # The revision is read first: an event landing in between is then returned (and
    # seen again on the next poll) rather than counted but never returned.
    revision = await history.revision(namespace, caller=info.context.principal)
    events = await history.changes(namespace, after_revision, limit, caller=info.context.principal)
    return ChangesPage(
        revision=revision, events=[ChangeEvent.from_domain(event) for event in events]
    )


async def resolve_changes_since(
    info: Info,
    revision: int,
    namespace: str = DEFAULT_NAMESPACE,
    limit: int | None = CHANGES_LIMIT,
) -> ChangesPage:
    return await resolve_changes(info, namespace, revision, limit)


@strawberry.type
class ChangeQuery:
    history = strawberry.field(
        resolver=resolve_history,
        description=(
            "The thought's creation and every refinement or consolidation of it, in order;"
            " THOUGHT_NOT_FOUND when it does not exist."
        ),
    )
    changes = strawberry.field(
        resolver=resolve_changes,
        description=(
            "Events with a revision above afterRevision, oldest first (limit 1 to 500)."
            " Poll again with afterRevision set to the last event's revision."
        ),
    )
    changes_since = strawberry.field(
        resolver=resolve_changes_since,
        description=(
            "What changed after `revision` (the revision an assembleContext answer or an"
            " earlier poll gave), oldest first: `changes` by the name seed 001 uses."
        ),
    )
