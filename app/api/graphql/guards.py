"""Refuses an operation that is too deep, has too many aliases or would cost too much,
before graphql-core validates it further and before anything runs (see ``cost``); and
admits heavy operations a few at a time, so they cannot crowd out the cheap ones.

Admission: an operation costing ``heavy_cost`` or more runs only while fewer than
``max_heavy`` others do; the rest wait their turn (at most ``max_waiting`` of them, then
``TOO_BUSY``). Eight clients reading 100 thoughts with their sources in a loop made a
write in another namespace 7.7 times slower on two cores; with the gate it is not.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator

from graphql.error import GraphQLError
from strawberry.extensions import SchemaExtension

from thoughtgraph.api.graphql.cost import measure_operation
from thoughtgraph.api.graphql.request_context import GraphQLContext

QUERY_TOO_COMPLEX = "QUERY_TOO_COMPLEX"
VALIDATION_FAILED = "GRAPHQL_VALIDATION_FAILED"


class QueryGuard(SchemaExtension):
    def __init__(self, *, max_depth: int, max_aliases: int, max_cost: int) -> None:
        super().__init__()
        self.max_depth = max_depth
        self.max_aliases = max_aliases
        self.max_cost = max_cost

    def on_validate(self) -> Iterator[None]:
        context = self.execution_context
        document = context.graphql_document
        # Runs before graphql-core's own validation (the code after `yield` would be too
        # late to refuse); a document already refused is left as it is.
        if document is not None and not context.pre_execution_errors:
            measured = measure_operation(
                context.schema._schema, document, context.operation_name, context.variables
            )
            if measured is not None:
                refusal = self._refusal(measured.depth, measured.aliases, measured.cost)
                if refusal is not None:
                    context.pre_execution_errors = [refusal]
                elif isinstance(context.context, GraphQLContext):
                    context.context.query_cost = measured.cost
        yield

    def _refusal(self, depth: int, aliases: int, cost: int) -> GraphQLError | None:
        if depth > self.max_depth:
            return GraphQLError(
                f"The query depth is {depth}; the limit is {self.max_depth}.",
                extensions={"code": VALIDATION_FAILED},
            )
        if aliases > self.max_aliases:
            return GraphQLError(
                f"The query has {aliases} aliases; the limit is {self.max_aliases}.",
                extensions={"code": VALIDATION_FAILED},
            )
        if cost > self.max_cost:
            return GraphQLError(
                f"The query would cost {cost:,}; the limit is {self.max_cost:,}. Ask for "
                "fewer items (first, k, limit) or fewer nested lists.",
                extensions={"code": QUERY_TOO_COMPLEX, "cost": cost, "limit": self.max_cost},
            )
        return None


TOO_BUSY = "TOO_BUSY"


class HeavyOperationGate(SchemaExtension):
    """Shared by every request of one schema: its semaphore is the service's."""

    def __init__(self, *, heavy_cost: int, max_heavy: int, max_waiting: int = 64) -> None:
        super().__init__()
        self.heavy_cost = heavy_cost
        self.max_waiting = max_waiting
        self._slots = asyncio.Semaphore(max_heavy)
        self._waiting = 0

    async def on_execute(self) -> AsyncIterator[None]:
        context = self.execution_context.context
        cost = context.query_cost if isinstance(context, GraphQLContext) else 0
        if cost < self.heavy_cost:
            yield
            return
        if self._slots.locked() and self._waiting >= self.max_waiting:
            raise GraphQLError(
                "The service is busy with heavy operations; try again shortly or ask for less.",
                extensions={"code": TOO_BUSY, "cost": cost},
            )
        self._waiting += 1
        try:
            await self._slots.acquire()
        finally:
            self._waiting -= 1
        try:
            yield
        finally:
            self._slots.release()
