"""/metrics of a real service over real HTTP, on both engines: what a few operations did
shows in the counters and histograms (read with prometheus_client's own parser)."""

from __future__ import annotations

from tests.observability_support import label_values, scrape, value
from tests.support import GraphQLClient

CONTRIBUTE = """
mutation($ns: String!, $content: String!) {
  contribute(input: {namespace: $ns, content: $content, agentId: "agent-1",
                     agentName: "Agent"}) { thought { id } }
}"""
SEARCH = """query($ns: String!, $q: String!) {
  search(namespace: $ns, query: $q) { thought { id } similarity } }"""


def test_metrics_count_operations_errors_statements_and_embedding(
    api: GraphQLClient, ns: str
) -> None:
    url = f"{api.base_url}/metrics"
    before = scrape(url)
    for content in ("The billing service retries twice.", "Checkout calls billing."):
        api.data(CONTRIBUTE, ns=ns, content=content)
    api.data(SEARCH, ns=ns, q="billing retries")
    assert api.error_codes("{ nosuchfield }") == ["GRAPHQL_VALIDATION_FAILED"]
    assert api.error_codes(SEARCH, ns="bad namespace!", q="x") == ["VALIDATION_ERROR"]
    after = scrape(url)

    def grew(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    ok = {"type": "mutation", "status": "ok"}
    assert grew("tg_graphql_requests_total", operation="contribute", **ok) == 2
    assert grew("tg_graphql_requests_total", operation="search", status="ok") == 1
    assert grew("tg_graphql_requests_total", operation="search", status="error") == 1
    assert grew("tg_graphql_request_seconds_count", operation="contribute") == 2
    assert grew("tg_graphql_request_seconds_sum", operation="contribute") > 0
    assert grew("tg_graphql_errors_total", code="GRAPHQL_VALIDATION_FAILED") == 1
    assert grew("tg_graphql_errors_total", operation="search", code="VALIDATION_ERROR") == 1
    # The store's one executor: each contribution created its thought with one statement.
    assert grew("tg_engine_statement_seconds_count", statement="thought.create", mode="write") == 2
    assert "thought.create" in label_values(after, "tg_engine_statement_seconds_count", "statement")
    # Two contributions embedded their content; the search embedded its query.
    assert grew("tg_embedder_seconds_count", kind="documents") == 2
    assert grew("tg_embedder_batch_size_sum", kind="documents") == 2
    assert grew("tg_embedder_seconds_count", kind="query") >= 1
    # A bucket count is cumulative: the +Inf bucket holds every observation.
    assert value(after, "tg_engine_statement_seconds_bucket", le="+Inf") == value(
        after, "tg_engine_statement_seconds_count"
    )
