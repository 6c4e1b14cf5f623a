"""Authorisation of every root field: the caller's role must allow the action and its key
the namespace. Nested fields stay inside the namespace their root field was allowed
(loaders are keyed by namespace), so checking the roots covers the whole operation.
``tests/api/test_api_keys.py`` fails if a root field is added without one of these."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar

from graphql import NoSchemaIntrospectionCustomRule, validate
from graphql.error import GraphQLError
from strawberry.extensions import SchemaExtension
from strawberry.permission import BasePermission

from thoughtgraph.api.access import AccessPolicy
from thoughtgraph.domain.access import Action

FORBIDDEN = "FORBIDDEN"


def namespace_argument(arguments: dict[str, Any]) -> str | None:
    """The namespace an operation addresses: its own argument, or its input's."""
    if "namespace" in arguments:
        return str(arguments["namespace"])
    given = arguments.get("input")
    namespace = getattr(given, "namespace", None)
    return str(namespace) if namespace is not None else None


class _NamespaceAccess(BasePermission):
    action: ClassVar[Action]
    message = "The API key does not allow this operation on this namespace."
    error_extensions = {"code": FORBIDDEN}

    def has_permission(self, source: Any, info: Any, **kwargs: Any) -> bool:
        principal = info.context.principal
        allowed: bool = principal.may(self.action, namespace_argument(kwargs))
        return allowed


class CanRead(_NamespaceAccess):
    action = Action.READ


class CanWrite(_NamespaceAccess):
    action = Action.WRITE


class IntrospectionSwitch(SchemaExtension):
    """Refuses introspection (``__schema``, ``__type``) unless the policy allows it: off
    by default once keys are required, so a stranger cannot map the API."""

    def __init__(self, *, enabled: bool | None, access: AccessPolicy) -> None:
        super().__init__()
        self.enabled = enabled
        self.access = access

    def on_validate(self) -> Iterator[None]:
        context = self.execution_context
        # Introspection names a __schema or __type field: other documents need no walk.
        mentions = context.query is not None and "__" in context.query
        if (
            mentions
            and context.graphql_document is not None
            and not self.access.open_unless_keyed(self.enabled)
        ):
            errors = validate(
                context.schema._schema, context.graphql_document, [NoSchemaIntrospectionCustomRule]
            )
            if errors:
                context.pre_execution_errors = [
                    GraphQLError(error.message, extensions={"code": FORBIDDEN}) for error in errors
                ]
        yield
