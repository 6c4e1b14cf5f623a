"""Context assembly queries: nothing here writes (searches count retrievals, as search does)."""

from __future__ import annotations

import strawberry

from thoughtgraph.api.graphql.context.types import (
    AssembledContext,
    ContextSignalsInput,
    PredictedContext,
    SessionBlock,
    SessionInjection,
    signals_of,
)
from thoughtgraph.api.graphql.request_context import Info
from thoughtgraph.domain.models import DEFAULT_NAMESPACE


async def resolve_assemble_context(
    info: Info,
    namespace: str = DEFAULT_NAMESPACE,
    budget: int | None = None,
    signals: ContextSignalsInput | None = None,
    since_revision: int | None = None,
) -> AssembledContext:
    assembled = await info.context.services.context.assemble(
        namespace,
        budget=budget,
        signals=signals_of(signals),
        since_revision=since_revision,
        caller=info.context.principal,
        agent_field="signals.agent",
    )
    return AssembledContext.from_domain(assembled)


async def resolve_predict_context(
    info: Info,
    namespace: str = DEFAULT_NAMESPACE,
    signals: ContextSignalsInput | None = None,
    budget: int | None = None,
) -> PredictedContext:
    prediction = await info.context.services.context.predict(
        namespace,
        signals=signals_of(signals),
        budget=budget,
        caller=info.context.principal,
        agent_field="signals.agent",
    )
    return PredictedContext.from_domain(prediction)


async def resolve_session_block(
    info: Info,
    namespace: str = DEFAULT_NAMESPACE,
    budget: int | None = None,
    signals: ContextSignalsInput | None = None,
    since_revision: int | None = None,
) -> SessionBlock:
    service = info.context.services.context
    block, assembled = await service.session_block(
        namespace,
        budget=budget,
        signals=signals_of(signals),
        since_revision=since_revision,
        caller=info.context.principal,
        agent_field="signals.agent",
    )
    limit = service.session_budget if budget is None else budget
    return SessionBlock.build(block, assembled, service.tokens(block.text), limit)


async def resolve_inject_session_block(
    info: Info,
    text: str,
    namespace: str = DEFAULT_NAMESPACE,
    budget: int | None = None,
    signals: ContextSignalsInput | None = None,
    since_revision: int | None = None,
) -> SessionInjection:
    injection, _ = await info.context.services.context.inject_session_block(
        namespace,
        text,
        budget=budget,
        signals=signals_of(signals),
        since_revision=since_revision,
        caller=info.context.principal,
        agent_field="signals.agent",
    )
    return SessionInjection.from_domain(injection)


@strawberry.type
class ContextQuery:
    assemble_context = strawberry.field(
        resolver=resolve_assemble_context,
        description=(
            "Context for the signals within `budget` tokens (default 8000): tier 1 critical,"
            " 2 relevant, 3 background, 4 index, each item at the compression level that fits;"
            " with sinceRevision, headed by 'Memory updates since rev N:'."
        ),
    )
    predict_context = strawberry.field(
        resolver=resolve_predict_context,
        description="What assembleContext would load for the signals, with a confidence each.",
    )
    session_block = strawberry.field(
        resolver=resolve_session_block,
        description=(
            "The session-start block: one <thoughtgraph-memory version=...> block within"
            " `budget` tokens (default 2000), tags included."
        ),
    )
    inject_session_block = strawberry.field(
        resolver=resolve_inject_session_block,
        description=(
            "`text` with the session block replacing the one it holds (all others removed),"
            " or added once at the end: never two blocks. Nothing is stored."
        ),
    )
