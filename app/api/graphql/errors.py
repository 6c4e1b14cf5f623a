"""How errors leave the API: codes on every expected error, everything else masked.

* A ``ThoughtgraphError`` raised by a service keeps its message and comes out with
  ``extensions`` = its ``.extensions`` (``code`` plus details): graphql-core copies an
  original error's ``extensions`` dict onto the GraphQL error it wraps it in.
* A document the server refuses before running it gets a code too: syntax errors and the
  token limit ``GRAPHQL_PARSE_FAILED``; validation (unknown fields, wrong argument types,
  the depth and alias limits) and variable coercion ``GRAPHQL_VALIDATION_FAILED``.
* Anything else is a bug or an outage: logged with its traceback through structlog,
  returned as "Unexpected error." with code ``INTERNAL_ERROR`` and nothing more.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import structlog
from graphql import ExecutionResult as GraphQLExecutionResult
from graphql.error import GraphQLError, GraphQLSyntaxError
from strawberry.extensions import MaskErrors, SchemaExtension
from strawberry.types import ExecutionContext
from strawberry.types import ExecutionResult as StrawberryExecutionResult

from thoughtgraph.domain.errors import ThoughtgraphError

log = structlog.get_logger(__name__)

PARSE_FAILED = "GRAPHQL_PARSE_FAILED"
VALIDATION_FAILED = "GRAPHQL_VALIDATION_FAILED"
INTERNAL_ERROR = ThoughtgraphError.code
MASKED_MESSAGE = "Unexpected error."
_REQUEST_CODES = frozenset({PARSE_FAILED, VALIDATION_FAILED})


def _code(error: GraphQLError) -> Any:
    return (error.extensions or {}).get("code")


def is_expected(error: GraphQLError) -> bool:
    """True for errors meant for the caller: ours, and refusals of the document itself."""
    original = error.original_error
    if original is None or isinstance(original, ThoughtgraphError | GraphQLError):
        return True
    return _code(error) in _REQUEST_CODES


def _public_message(error: GraphQLError) -> str | None:
    original = error.original_error
    if isinstance(original, ThoughtgraphError):
        return original.public_message
    return None


def should_mask_error(error: GraphQLError) -> bool:
    """Unexpected errors, and expected ones whose own words are for the operator only."""
    return not is_expected(error) or _public_message(error) is not None


class MaskUnexpectedErrors(MaskErrors):
    """``MaskErrors`` that leaves expected errors alone and codes what it masks: an
    infrastructure error keeps its code with its public message, anything else becomes
    ``INTERNAL_ERROR``. What was masked is in the log (``log_errors``)."""

    def __init__(self) -> None:
        super().__init__(should_mask_error=should_mask_error, error_message=MASKED_MESSAGE)

    def anonymise_error(self, error: GraphQLError) -> GraphQLError:
        masked = super().anonymise_error(error)
        original = error.original_error
        public = _public_message(error)
        if public is not None and isinstance(original, ThoughtgraphError):
            masked.message = public
            masked.extensions = {"code": original.code}
        else:
            masked.extensions = {"code": INTERNAL_ERROR}
        return masked


def request_error_code(error: GraphQLError) -> str | None:
    """The code of an error refusing the request itself (it has no field path), if any."""
    if error.path is not None or _code(error) is not None:
        return None
    if error.original_error is not None and not isinstance(error.original_error, GraphQLError):
        return None
    # Syntax errors and the token limit are raised by the parser as GraphQLSyntaxError;
    # everything else without a path failed validation or variable coercion.
    return PARSE_FAILED if isinstance(error, GraphQLSyntaxError) else VALIDATION_FAILED


def _tag(errors: Iterable[GraphQLError], code: str | None = None) -> None:
    """Give each error without a code ``code``, or the one ``request_error_code`` finds."""
    for error in errors:
        if _code(error) is not None:
            continue
        chosen = code or request_error_code(error)
        if chosen is not None:
            error.extensions = {"code": chosen, **(error.extensions or {})}


class RequestErrorCodes(SchemaExtension):
    """Adds ``extensions.code`` to errors refusing the request before any resolver runs."""

    def on_parse(self) -> Iterator[None]:
        yield
        _tag(self.execution_context.pre_execution_errors or (), PARSE_FAILED)

    def on_validate(self) -> Iterator[None]:
        yield
        _tag(self.execution_context.pre_execution_errors or (), VALIDATION_FAILED)

    def on_execute(self) -> Iterator[None]:
        yield
        # Variables that fail to coerce to their declared types surface here.
        result = self.execution_context.result
        if isinstance(result, GraphQLExecutionResult | StrawberryExecutionResult):
            _tag(result.errors or ())


def log_errors(errors: Iterable[GraphQLError], context: ExecutionContext | None) -> None:
    """Log each error once, before masking; only unexpected ones carry a traceback."""
    operation = context.operation_name if context is not None else None
    for error in errors:
        original = error.original_error
        path = ".".join(str(part) for part in error.path) if error.path else None
        if isinstance(original, ThoughtgraphError) and original.public_message is not None:
            log.warning(
                "graphql.infrastructure_error",
                code=original.code,
                error=original.message,
                path=path,
                **{k: str(v) for k, v in original.details.items()},
            )
        elif isinstance(original, ThoughtgraphError):
            log.info("graphql.error", code=original.code, error=original.message, path=path)
        elif is_expected(error):
            code = _code(error) or request_error_code(error)
            log.info("graphql.rejected", code=code, error=error.message, path=path)
        else:
            log.error(
                "graphql.unexpected_error",
                operation=operation,
                path=path,
                exc_info=original,
            )
