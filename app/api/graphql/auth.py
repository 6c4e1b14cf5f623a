"""Introspection, refused unless the access policy allows it. What a key may do is decided
by the services (``features.access``): every root field's service call checks the key's
scope, and nested fields stay inside the namespace their root field was allowed (loaders
are keyed by namespace). ``tests/api/test_api_keys.py`` asks every root field with a key of
another namespace and fails if one answers."""

from __future__ import annotations

from collections.abc import Iterator

from graphql import NoSchemaIntrospectionCustomRule, validate
from graphql.error import GraphQLError
from strawberry.extensions import SchemaExtension

from thoughtgraph.api.access import AccessPolicy

FORBIDDEN = "FORBIDDEN"


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
