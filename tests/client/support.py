"""The schema the client is checked against: the service's own, built here."""

from __future__ import annotations

import re
from functools import cache

from graphql import GraphQLSchema

from thoughtgraph.api.graphql.schema import build_schema
from thoughtgraph.settings import Settings


@cache
def schema() -> GraphQLSchema:
    return build_schema(Settings())._schema


def root_fields() -> list[str]:
    """Every query and mutation of the live schema."""
    live = schema()
    assert live.query_type is not None and live.mutation_type is not None
    return [*live.query_type.fields, *live.mutation_type.fields]


def snake(name: str) -> str:
    """The client's method name for a root field."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()
