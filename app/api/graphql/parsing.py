"""Parse each GraphQL document text once.

Agents send the same few documents over and over, and parsing plus validation was about
half of the time strawberry spent on a search. Unlike strawberry's ``ParserCache``, a
document that fails to parse is left to strawberry's own parse, so it is reported (and
given its error code) like any other syntax error; failures are never cached.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import cache, lru_cache
from typing import Any

from graphql.error import GraphQLError
from graphql.language.parser import parse
from strawberry.extensions import SchemaExtension


@cache
def _shared_parse(maxsize: int) -> Callable[..., Any]:
    # One bounded cache per size, shared by every request (extensions are per request).
    return lru_cache(maxsize=maxsize)(parse)


class CachedParser(SchemaExtension):
    def __init__(self, maxsize: int = 256) -> None:
        super().__init__()
        self._parse = _shared_parse(maxsize)

    def on_parse(self) -> Iterator[None]:
        context = self.execution_context
        try:
            context.graphql_document = self._parse(context.query, **context.parse_options)
        except GraphQLError:
            context.graphql_document = None
        yield
