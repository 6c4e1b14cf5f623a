"""The rest of the GraphQL surface over real HTTP: change search, history, listing,
namespaces, health, GraphiQL and the query guards."""

from __future__ import annotations

from tests.api.test_api_lineage import CONSOLIDATE, agent, contribute, refine
from tests.support import GraphQLClient

SEARCH_CHANGES = """
query Changes($query: String!, $namespace: String!) {
  searchChanges(query: $query, namespace: $namespace, k: 5) {
    fromId toId relation reason score from { content } to { content }
  }
}
"""
HISTORY = """
query History($id: ID!, $namespace: String!) {
  history(thoughtId: $id, namespace: $namespace) {
    revision kind thoughtId sourceIds actorId actorName at
  }
}
"""
LIST = """
query List($namespace: String!, $first: Int, $after: String, $filter: ThoughtFilterInput) {
  thoughts(namespace: $namespace, first: $first, after: $after, filter: $filter) {
    edges { cursor node { content } }
    pageInfo { hasNextPage endCursor }
  }
}
"""


def test_search_changes_finds_edges_by_the_meaning_of_their_reason(
    api: GraphQLClient, ns: str
) -> None:
    cache = contribute(api, ns, "Responses are cached for ten minutes")["thought"]["id"]
    timeout = contribute(api, ns, "Requests time out after 30 seconds")["thought"]["id"]
    refine(
        api,
        ns,
        cache,
        "Responses are cached for one minute",
        reason="users saw stale prices because the cache lived too long",
    )
    merged = api.data(
        CONSOLIDATE,
        input=agent(
            ns,
            "HTTP policy: 1 minute cache, 30 s timeout",
            sourceIds=[cache, timeout],
            reason="merged the HTTP client settings into one note",
        ),
    )["consolidate"]["thought"]["id"]
    hits = api.data(SEARCH_CHANGES, query="outdated prices shown to customers", namespace=ns)[
        "searchChanges"
    ]
    assert hits[0]["relation"] == "REFINES"
    assert hits[0]["toId"] == cache
    assert hits[0]["reason"].startswith("users saw stale prices")
    assert hits[0]["to"]["content"] == "Responses are cached for ten minutes"
    merged_hits = api.data(
        SEARCH_CHANGES, query="combining client configuration notes", namespace=ns
    )["searchChanges"]
    assert merged_hits[0]["relation"] == "CONSOLIDATES"
    assert merged_hits[0]["fromId"] == merged


def test_history_lists_a_thoughts_events_in_revision_order(api: GraphQLClient, ns: str) -> None:
    a = contribute(api, ns, "Use Postgres for the ledger")["thought"]["id"]
    b = refine(api, ns, a, "Use Postgres 16 for the ledger")["thought"]["id"]
    events = api.data(HISTORY, id=a, namespace=ns)["history"]
    assert [(e["revision"], e["kind"], e["thoughtId"]) for e in events] == [
        (1, "CREATED", a),
        (2, "REFINED", b),
    ]
    assert events[1]["sourceIds"] == [a]
    assert events[1]["actorId"] == "qa"
    assert events[0]["at"] <= events[1]["at"]
    assert api.data(HISTORY, id=b, namespace=ns)["history"][0]["kind"] == "REFINED"


def test_thoughts_pages_with_cursors_and_filters(api: GraphQLClient, ns: str) -> None:
    for i in range(5):
        contribute(
            api, ns, f"note number {i} about topic {i}", tags=["even" if i % 2 == 0 else "odd"]
        )
    seen: list[str] = []
    after = None
    while True:
        page = api.data(LIST, namespace=ns, first=2, after=after)["thoughts"]
        seen += [edge["node"]["content"] for edge in page["edges"]]
        if not page["pageInfo"]["hasNextPage"]:
            break
        after = page["pageInfo"]["endCursor"]
    assert seen == [f"note number {i} about topic {i}" for i in reversed(range(5))]
    odd = api.data(LIST, namespace=ns, filter={"tag": "odd"})["thoughts"]["edges"]
    assert [e["node"]["content"] for e in odd] == [
        "note number 3 about topic 3",
        "note number 1 about topic 1",
    ]
    assert api.error_codes(LIST, namespace=ns, after="garbage") == ["VALIDATION_ERROR"]
    assert api.error_codes(LIST, namespace=ns, first=0) == ["VALIDATION_ERROR"]


def test_namespaces_are_isolated_over_the_api(api: GraphQLClient, ns: str) -> None:
    other = ns + "-other"
    mine = contribute(api, ns, "The office wifi password rotates monthly")["thought"]["id"]
    contribute(api, other, "The office wifi password rotates monthly")
    hits = api.data(
        "query($q: String!, $ns: String!) { search(query: $q, namespace: $ns) { id } }",
        q="wifi password",
        ns=ns,
    )["search"]
    assert [hit["id"] for hit in hits] == [mine]
    assert (
        api.data(
            "query($id: ID!, $ns: String!) { thought(id: $id, namespace: $ns) { id } }",
            id=mine,
            ns=other,
        )["thought"]
        is None
    )
    assert api.error_codes(
        "mutation($i: RefineInput!) { refine(input: $i) { revision } }",
        i=agent(other, "cross-namespace refinement", sourceId=mine),
    ) == ["THOUGHT_NOT_FOUND"]


def test_healthz_reports_engine_embedder_and_schema(api: GraphQLClient) -> None:
    response = api.http.get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert body["engine"] == api.engine
    assert body["schema"] == {"ready": True, "embeddingDimension": 384}
    assert body["embedder"]["name"].startswith("local:")
    assert body["embedder"]["dimension"] == 384
    # Liveness tells no paths or process ids.
    assert "/" not in response.text.replace("local:", "") and "pid" not in response.text


def test_readyz_reports_a_ready_writable_store(api: GraphQLClient) -> None:
    response = api.http.get("/readyz")
    assert response.status_code == 200
    assert response.json() == {
        "status": "ready",
        "ready": True,
        "writable": True,
        "engine": api.engine,
        "reason": None,
        "degraded": None,
    }


def test_graphiql_is_served(api: GraphQLClient) -> None:
    response = api.http.get("/graphql", headers={"Accept": "text/html"})
    assert response.status_code == 200
    assert "graphiql" in response.text.lower()


def test_query_depth_and_alias_limits(api: GraphQLClient, ns: str) -> None:
    deep = "query { thoughts { nodes { " + "sources { " * 14 + "id" + " }" * 14 + " } } }"
    body = api.execute(deep)
    assert body.get("errors")
    assert "depth" in body["errors"][0]["message"].lower()
    aliases = " ".join(
        f'a{i}: thought(id: "{"0" * 8}-0000-4000-8000-{i:012d}") {{ id }}' for i in range(40)
    )
    body = api.execute("query { " + aliases + " }")
    assert body.get("errors")
    assert "alias" in body["errors"][0]["message"].lower()
