"""GraphQL operations, measured and traced: a strawberry extension over every operation.

An operation is labelled by its root fields (``contribute``, ``search,topics``), which the
schema bounds, rather than by the operation name a client chooses, which nothing bounds.
Its errors are counted by ``extensions.code``; an error without one is INTERNAL_ERROR.
The telemetry is the runtime's, reached through the request's services.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

from graphql import FieldNode, InlineFragmentNode, OperationDefinitionNode, SelectionSetNode
from graphql.error import GraphQLError
from strawberry.extensions import SchemaExtension

from thoughtgraph.api.graphql.request_context import GraphQLContext
from thoughtgraph.observability.telemetry import Telemetry

MAX_NAMED_FIELDS = 3
UNPARSED = "(unparsed)"
INTERNAL_ERROR = "INTERNAL_ERROR"


class OperationTelemetry(SchemaExtension):
    def on_operation(self) -> Iterator[None]:
        telemetry = _telemetry_of(self.execution_context.context)
        if telemetry is None:  # outside a service (schema unit tests)
            yield
            return
        started = time.perf_counter()
        with telemetry.tracing.span("graphql") as span:
            yield
            operation, kind = self._operation()
            if span is not None:
                span.update_name(f"graphql {kind} {operation}")
                span.set_attribute("graphql.operation.type", kind)
                span.set_attribute("graphql.operation.fields", operation)
        codes = self._error_codes()
        m = telemetry.metrics
        m.graphql_latency.labels(operation, kind).observe(time.perf_counter() - started)
        m.graphql_requests.labels(operation, kind, "error" if codes else "ok").inc()
        for code in codes:
            m.graphql_errors.labels(operation, code).inc()

    def _operation(self) -> tuple[str, str]:
        definition = _chosen_operation(self.execution_context)
        if definition is None:
            return UNPARSED, "unknown"
        return root_fields_label(definition.selection_set), definition.operation.value

    def _error_codes(self) -> list[str]:
        context = self.execution_context
        # A refused document's errors are both the pre-execution errors and the result's.
        errors: dict[int, GraphQLError] = {id(e): e for e in context.pre_execution_errors or ()}
        result = context.result
        if result is not None and result.errors:
            errors.update((id(e), e) for e in result.errors)
        return [str((e.extensions or {}).get("code") or INTERNAL_ERROR) for e in errors.values()]


def _telemetry_of(context: Any) -> Telemetry | None:
    # Only a service's own context is asked (never an arbitrary object's attributes).
    if not isinstance(context, GraphQLContext):
        return None
    telemetry = getattr(context.services, "telemetry", None)
    return telemetry if isinstance(telemetry, Telemetry) else None


def _chosen_operation(context: Any) -> OperationDefinitionNode | None:
    document = context.graphql_document
    if document is None:
        return None
    name = context.operation_name
    operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    for definition in operations:
        if name is None or (definition.name is not None and definition.name.value == name):
            return definition
    return None


def root_fields_label(selection_set: SelectionSetNode) -> str:
    """The distinct root fields, sorted and joined by commas; beyond three, ``+N``."""
    names = sorted(set(_field_names(selection_set)))
    if not names:
        return "(none)"
    shown = ",".join(names[:MAX_NAMED_FIELDS])
    extra = len(names) - MAX_NAMED_FIELDS
    return f"{shown},+{extra}" if extra > 0 else shown


def _field_names(selection_set: SelectionSetNode) -> Iterator[str]:
    for selection in selection_set.selections:
        if isinstance(selection, FieldNode):
            yield selection.name.value
        elif isinstance(selection, InlineFragmentNode):
            yield from _field_names(selection.selection_set)
