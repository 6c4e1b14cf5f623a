"""The query guard: depth, aliases and cost measured before anything runs, in one pass that
measures each fragment once (strawberry's limiters walked every expansion: exponential).

The documents are refused or let through before any resolver runs, so no engine is
needed: refused documents never touch the context, accepted ones fail on it (Untouchable)
with INTERNAL_ERROR, which tells them apart.
"""

from __future__ import annotations

from typing import Any

import pytest
import strawberry

from tests.api.test_graphql_unit import Untouchable, codes, run
from thoughtgraph.api.graphql.cost import measure_operation
from thoughtgraph.api.graphql.schema import build_schema
from thoughtgraph.settings import Settings


@pytest.fixture(scope="module")
def schema(tmp_path_factory: pytest.TempPathFactory) -> strawberry.Schema:
    return build_schema(Settings(data_dir=tmp_path_factory.mktemp("guards")))


def fragment_bomb(levels: int, leaf: str = "__typename") -> str:
    """Each fragment spreads the next three times: 3**(levels-1) expansions of the leaf."""
    fragments = [
        f"fragment F{i} on Query {{ ...F{i + 1} ...F{i + 1} ...F{i + 1} }}"
        for i in range(levels - 1)
    ]
    fragments.append(f"fragment F{levels - 1} on Query {{ {leaf} }}")
    return "query { ...F0 }\n" + "\n".join(fragments)


def measured(schema: strawberry.Schema, document: str, **variables: Any) -> Any:
    from graphql import parse

    return measure_operation(schema._schema, parse(document), None, variables)


def test_a_fragment_bomb_is_measured_by_arithmetic_not_expansion(
    schema: strawberry.Schema,
) -> None:
    # 60 levels would be 3**59 expansions: only a measure that visits each fragment once
    # can answer at all.
    harmless = measured(schema, fragment_bomb(60))
    assert (harmless.depth, harmless.aliases, harmless.cost) == (1, 0, 0)
    aliased = measured(schema, fragment_bomb(60, leaf="a: __typename b: __typename"))
    assert aliased.aliases == 2 * 3**59
    body = run(schema, fragment_bomb(60, leaf="a: __typename"), Untouchable())
    assert codes(body) == ["GRAPHQL_VALIDATION_FAILED"]
    assert f"{3**59} aliases" in body["errors"][0]["message"]


def test_a_fragment_bomb_of_search_calls_is_refused_by_cost(schema: strawberry.Schema) -> None:
    bomb = fragment_bomb(14, leaf='search(query: "x") { id }')
    body = run(schema, bomb, Untouchable())
    assert codes(body) == ["QUERY_TOO_COMPLEX"]
    # search weighs 10, five times that as it may expand (expand left out).
    assert body["errors"][0]["extensions"]["cost"] == 3**13 * (10 * 5 + 10 * 0)


def test_nested_lists_multiply_and_are_refused(schema: strawberry.Schema) -> None:
    nested = (
        '{ thought(id: "00000000-0000-4000-8000-000000000000") { refinements { sources '
        "{ refinements { sources { refinements { sources { id } } } } } } } }"
    )
    body = run(schema, nested, Untouchable())
    assert codes(body) == ["QUERY_TOO_COMPLEX"]
    extensions = body["errors"][0]["extensions"]
    assert extensions["cost"] > extensions["limit"] == 10_000
    assert "Ask for fewer items" in body["errors"][0]["message"]


def test_list_sizes_come_from_arguments_and_variables(schema: strawberry.Schema) -> None:
    document = (
        'query($k: Int) { search(query: "x", k: $k, expand: false) { thought { sources { id } } } }'
    )
    small = measured(schema, document, k=2)
    large = measured(schema, document, k=100)
    # search weighs 10 (not expanded); each hit's thought 1 and its sources 1, per hit.
    assert small.cost == 10 + 2 * (1 + 1 * 1)
    assert large.cost == 10 + 100 * (1 + 1 * 1)
    assert measured(schema, document).cost == 10 + 10 * (1 + 1 * 1)  # the default k


def test_ordinary_operations_pass_the_guard(schema: strawberry.Schema) -> None:
    ordinary = [
        '{ search(query: "how are agents monitored?", k: 10) { score similarity superseded '
        "refinedBy thought { content type } } }",
        '{ lineage(id: "00000000-0000-4000-8000-000000000000") { truncated chain { depth '
        "type contentPreview contributor sourceIds } } }",
        "{ thoughts(first: 100) { nodes { id content sources { id } refinedBy { id } } "
        "pageInfo { hasNextPage endCursor } } }",
        "{ changes(limit: 500) { revision events { revision kind thoughtId } } }",
    ]
    for document in ordinary:
        body = run(schema, document, Untouchable())
        assert "QUERY_TOO_COMPLEX" not in codes(body), (document, body)
        assert "GRAPHQL_VALIDATION_FAILED" not in codes(body), (document, body)


def test_heavy_operations_take_turns_and_are_refused_when_too_many_wait(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """One heavy slot, nobody may wait: while one heavy search runs, a second heavy one is
    refused with TOO_BUSY, a cheap one runs, and the slot is free again afterwards."""
    import asyncio
    from types import SimpleNamespace

    from thoughtgraph.api.graphql.request_context import GraphQLContext
    from thoughtgraph.domain.access import Principal

    settings = Settings(
        data_dir=tmp_path_factory.mktemp("gate"),
        heavy_query_cost=100,
        max_concurrent_heavy_queries=1,
        max_waiting_heavy_queries=0,
    )
    schema = build_schema(settings)
    release = asyncio.Event()
    entered = asyncio.Event()

    class HeldSearch:
        async def search_for(self, *args: Any, **kwargs: Any) -> list[Any]:
            entered.set()
            await release.wait()
            return []

    def context() -> Any:
        services = SimpleNamespace(search=HeldSearch())
        return GraphQLContext(services=services, loaders=None, principal=Principal.anyone())  # type: ignore[arg-type]

    heavy = '{ search(query: "x", k: 100) { thought { content } } }'  # cost 110
    cheap = '{ search(query: "x", k: 1) { id } }'  # cost 10

    async def scenario() -> tuple[Any, Any, Any]:
        first = asyncio.create_task(schema.execute(heavy, context_value=context()))
        await entered.wait()
        refused = await schema.execute(heavy, context_value=context())
        entered.clear()
        cheap_run = asyncio.create_task(schema.execute(cheap, context_value=context()))
        await entered.wait()  # the cheap one is not held back by the heavy slot
        release.set()
        return await first, refused, await cheap_run

    first, refused, cheap_result = asyncio.run(scenario())
    assert first.errors is None and cheap_result.errors is None
    assert [e.extensions["code"] for e in refused.errors] == ["TOO_BUSY"]
    again = asyncio.run(schema.execute(heavy, context_value=context()))
    assert again.errors is None  # the slot was released


def test_an_expanded_search_costs_what_its_extra_searches_do(schema: strawberry.Schema) -> None:
    """expand: true runs a search per content word and the session reads besides the base
    search: it weighs HEAVY_FLAGS' factor more, given literally or by variable, and so
    does a search that leaves it out (it expands hits from sessions); false does not."""
    from thoughtgraph.api.graphql.cost import HEAVY_FLAGS

    factor = HEAVY_FLAGS["search"][1]
    plain = measured(schema, '{ search(query: "x") { id } }').cost
    expanded = measured(schema, '{ search(query: "x", expand: true) { id } }').cost
    by_variable = measured(
        schema, 'query Q($e: Boolean) { search(query: "x", expand: $e) { id } }', e=True
    ).cost
    off = measured(schema, '{ search(query: "x", expand: false) { id } }').cost
    assert expanded == by_variable == plain > off
    assert expanded >= factor * 10  # search's own weight is 10 (ROOT_WEIGHTS)
