"""contributeMany over real HTTP on both engines: many originals in one call, checked
before anything is written, each with its change event."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.api.test_api_lineage import SEARCH, agent, revision
from tests.support import GraphQLClient

CONTRIBUTE_MANY = """
mutation Many($inputs: [ContributeManyInput!]!) {
  contributeMany(inputs: $inputs) {
    revision guidance { similarity }
    thought { id content type tags kind importance namespace }
  }
}
"""
HISTORY = """
query History($id: ID!, $namespace: String!) {
  history(thoughtId: $id, namespace: $namespace) { revision kind actorId }
}
"""


def many(api: GraphQLClient, inputs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    result: list[dict[str, Any]] = api.data(CONTRIBUTE_MANY, inputs=inputs)["contributeMany"]
    return result


def test_contribute_many_stores_each_original_with_its_event(api: GraphQLClient, ns: str) -> None:
    before = revision(api, ns)
    texts = [
        "The billing service retries failed card payments three times",
        "Invoices are emailed on the first working day of the month",
        "Refunds above 500 euros need a second approval",
    ]
    answer = many(
        api,
        [agent(ns, text, tags=["billing"], kind="DECISION", importance=4) for text in texts],
    )
    assert [a["thought"]["content"] for a in answer] == texts
    assert all(a["thought"]["type"] == "ORIGINAL" and a["guidance"] is None for a in answer)
    assert all(a["thought"]["kind"] == "DECISION" for a in answer)
    assert [a["revision"] for a in answer] == [before + 1, before + 2, before + 3]
    assert revision(api, ns) == before + 3
    first = answer[0]["thought"]["id"]
    events = api.data(HISTORY, id=first, namespace=ns)["history"]
    assert [(e["kind"], e["actorId"]) for e in events] == [("CREATED", "qa")]
    hits = api.data(SEARCH, query="second approval for big refunds", namespace=ns, k=3)["search"]
    assert hits[0]["thought"]["content"] == texts[2]


def test_one_bad_item_writes_nothing(api: GraphQLClient, ns: str) -> None:
    before = revision(api, ns)
    inputs = [agent(ns, "a perfectly fine thought"), agent(ns, "too important", importance=9)]
    assert api.error_codes(CONTRIBUTE_MANY, inputs=inputs) == ["VALIDATION_ERROR"]
    assert api.error_codes(CONTRIBUTE_MANY, inputs=[agent(ns, "fine"), agent(ns, "  ")]) == [
        "VALIDATION_ERROR"
    ]
    assert revision(api, ns) == before


def test_more_than_the_batch_limit_is_refused(api: GraphQLClient, ns: str) -> None:
    inputs = [agent(ns, f"thought number {i}") for i in range(101)]
    body = api.execute(CONTRIBUTE_MANY, inputs=inputs)
    error = body["errors"][0]
    assert error["extensions"]["code"] == "VALIDATION_ERROR"
    assert "at most 100" in error["message"]
    assert api.error_codes(CONTRIBUTE_MANY, inputs=[]) == ["VALIDATION_ERROR"]
    assert revision(api, ns) == 0


def test_contribute_many_costs_in_proportion_to_its_inputs(tmp_path: Path) -> None:
    from graphql import parse

    from thoughtgraph.api.graphql.cost import ROOT_WEIGHTS, measure_operation
    from thoughtgraph.api.graphql.schema import build_schema
    from thoughtgraph.settings import Settings

    schema = build_schema(Settings(data_dir=tmp_path))
    document = parse(
        "mutation M($inputs: [ContributeManyInput!]!) "
        "{ contributeMany(inputs: $inputs) { revision } }"
    )

    def cost(inputs: list[dict[str, Any]]) -> int:
        measured = measure_operation(schema._schema, document, None, {"inputs": inputs})
        assert measured is not None
        return measured.cost

    one, many_ = cost([agent("x", "a")]), cost([agent("x", str(i)) for i in range(40)])
    assert many_ - one == 39 * ROOT_WEIGHTS["contributeMany"]
    literal = parse(
        'mutation { contributeMany(inputs: [{content: "a", agentId: "q", '
        'agentName: "Q"}, {content: "b", agentId: "q", agentName: "Q"}]) '
        "{ revision } }"
    )
    measured = measure_operation(schema._schema, literal, None, {})
    assert measured is not None and measured.cost == one + ROOT_WEIGHTS["contributeMany"]
