"""What the explorer test (tests/api/test_explorer.py) writes and asks: a namespace with a
lineage, a consolidation run and a contradiction, written through GraphQL with the test's
API key (and the jobs a worker would run, on the service's own loop), and the operations
whose answers each view of the page is compared with."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tests.support import GraphQLClient
from thoughtgraph.features.consolidation.jobs import run_consolidation
from thoughtgraph.features.contradictions.jobs import scan_thoughts
from thoughtgraph.tools.eval.api_service import EvalService

CHAIN = (
    "Agents are monitored by status and role",
    "Role alone decides how agents are monitored",
    "Recent activity and role decide agent monitoring",
)
DASHBOARD = "The agent monitoring dashboard refreshes every minute"
CONSOLIDATED = "Agent monitoring: activity and role, on a dashboard refreshed every minute"
NEWEST = "Agent monitoring now weighs error rate, activity and role"
CONTRADICTION = (
    "The staging database runs PostgreSQL 14.",
    "The staging database runs PostgreSQL 16.",
)
DUPLICATES = (
    "Deployments go out through the GitHub Actions pipeline.",
    "Deployments go out through the GitHub Actions pipeline!",
)
SEARCH_QUERY = "how are agents monitored?"
CONTEXT_QUERY = "change how agents are monitored"
CONTEXT_BUDGET = 1500

CONTRIBUTE = "mutation($input: ContributeInput!) { contribute(input: $input) { thought { id } } }"
REFINE = "mutation($input: RefineInput!) { refine(input: $input) { thought { id } } }"
CONSOLIDATE = (
    "mutation($input: ConsolidateInput!) { consolidate(input: $input) { thought { id } } }"
)
SUPERSEDE = """mutation($ns: String!, $newer: ID!, $older: ID!) {
  supersede(namespace: $ns, newerId: $newer, olderId: $older, reason: "error rate matters") { id }
}"""
CITE = """mutation($ns: String!, $id: ID!) {
  cite(namespace: $ns, thoughtId: $id, action: "planned the monitoring change") { id }
}"""
REVISION = "query($ns: String!) { changes(namespace: $ns, limit: 1) { revision } }"
SEARCH = """query($ns: String!, $q: String!) {
  search(query: $q, namespace: $ns, k: 20) {
    id superseded thought { content } explain { relevance }
  }
}"""
THOUGHT = """query($ns: String!, $id: ID!) {
  thought(namespace: $ns, id: $id) {
    id content state superseded citeCount ignoreCount supersededBy { id } topic { id }
  }
  lineage(namespace: $ns, id: $id) { chain { thoughtId type depth sourceIds } }
  history(namespace: $ns, thoughtId: $id) { revision kind }
  related(namespace: $ns, id: $id) { thought { id } }
}"""
SUPERSEDED_BY = """query($ns: String!, $id: ID!) {
  thought(namespace: $ns, id: $id) { supersededBy { id } }
}"""
CONTRADICTIONS = """query($ns: String!, $status: ContradictionStatus) {
  contradictions(namespace: $ns, status: $status, first: 50) {
    id status resolution thoughtA { id } thoughtB { id supersededBy { id } }
  }
}"""
TOPICS = """query($ns: String!) {
  topics(namespace: $ns, first: 50) { id name summary thoughts(first: 20) { id } }
}"""
RUNS = """query($ns: String!) {
  consolidationRuns(namespace: $ns, first: 20) {
    id status counts { candidates deduped assigned summarised superseded forgotten purged
                       contradictionsFound links pairsJudged }
    merges { id state sourceIds }
  }
}"""
MERGED_INTO = """query($ns: String!, $id: ID!) {
  thought(namespace: $ns, id: $id) { superseded supersededBy { id type sources { id } } }
}"""
TIMELINE = """query($ns: String!, $since: Int!) {
  changesSince(namespace: $ns, revision: $since, limit: 100) { events { revision kind } }
}"""
CONTEXT = """query($ns: String!, $q: String!, $budget: Int!) {
  assembleContext(namespace: $ns, budget: $budget, signals: {query: $q}) {
    text tokenCount tiers { tier items tokens } items { key }
  }
}"""
EDGE_FOR_TYPE = {"REFINEMENT": "REFINES", "CONSOLIDATION": "CONSOLIDATES"}


@dataclass
class Seeded:
    """What the test wrote, by name."""

    chain: list[str]
    dashboard: str
    consolidated: str
    newest: str
    contradiction: str
    duplicates: list[str]
    merged: str
    since: int


class KeyedClient:
    """GraphQL over HTTP with the explorer test's API key."""

    def __init__(self, base_url: str, key: str) -> None:
        self.client = GraphQLClient(base_url)
        self.headers = {"authorization": f"Bearer {key}"}

    def data(self, document: str, /, **variables: Any) -> dict[str, Any]:
        response = self.client.post(document, headers=self.headers, **variables)
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        assert not body.get("errors"), body["errors"]
        data: dict[str, Any] = body["data"]
        return data

    def write(self, document: str, field: str, ns: str, content: str, **extra: Any) -> str:
        payload = {"content": content, "agentId": "qa", "agentName": "QA", "namespace": ns}
        thought_id: str = self.data(document, input={**payload, **extra})[field]["thought"]["id"]
        return thought_id


def seed(api: KeyedClient, svc: EvalService, ns: str) -> Seeded:
    """A lineage (A <- B <- C, C + D consolidated into E), a consolidation run that links
    E to Y as related, merges two near-duplicates and makes topics, Y superseding E, and
    a contradiction found by the scan a worker runs after a write."""
    chain = [api.write(CONTRIBUTE, "contribute", ns, CHAIN[0])]
    for content in CHAIN[1:]:
        reason = "the older rule missed idle agents"
        chain.append(api.write(REFINE, "refine", ns, content, sourceId=chain[-1], reason=reason))
    dashboard = api.write(CONTRIBUTE, "contribute", ns, DASHBOARD)
    sources = [chain[-1], dashboard]
    consolidated = api.write(CONSOLIDATE, "consolidate", ns, CONSOLIDATED, sourceIds=sources)
    newest = api.write(CONTRIBUTE, "contribute", ns, NEWEST)
    api.data(CITE, ns=ns, id=consolidated)
    since = int(api.data(REVISION, ns=ns)["changes"]["revision"])

    # The run links E and Y as related (both current then), merges the duplicates and
    # makes topics; Y supersedes E after it (unless the run decided so itself).
    duplicates = [api.write(CONTRIBUTE, "contribute", ns, text) for text in DUPLICATES]
    services = svc.runtime.services
    run = svc.call(services.consolidation.request(ns, dry_run=False, trigger="test"))
    svc.call(run_consolidation(svc.runtime, ns, run.id, dry_run=False))
    merged = api.data(MERGED_INTO, ns=ns, id=duplicates[0])["thought"]["supersededBy"]
    assert merged["type"] == "CONSOLIDATION"
    assert {source["id"] for source in merged["sources"]} == set(duplicates)
    if api.data(SUPERSEDED_BY, ns=ns, id=consolidated)["thought"]["supersededBy"] is None:
        api.data(SUPERSEDE, ns=ns, newer=newest, older=consolidated)

    # After the run, which would settle an open contradiction of this kind by itself.
    older = api.write(CONTRIBUTE, "contribute", ns, CONTRADICTION[0])
    newer = api.write(CONTRIBUTE, "contribute", ns, CONTRADICTION[1])
    svc.call(scan_thoughts(svc.runtime, ns, [newer]))
    # The run may have opened others among the monitoring thoughts (the offline judge
    # flags "Agent monitoring now weighs error rate ..." against the oldest rule at low
    # confidence, which opens a contradiction and supersedes nothing).
    opened = api.data(CONTRADICTIONS, ns=ns, status="OPEN")["contradictions"]
    (found,) = [c for c in opened if newer in (c["thoughtA"]["id"], c["thoughtB"]["id"])]
    assert (found["thoughtA"]["id"], found["thoughtB"]["id"]) == (older, newer)
    return Seeded(
        chain=chain,
        dashboard=dashboard,
        consolidated=consolidated,
        newest=newest,
        contradiction=found["id"],
        duplicates=duplicates,
        merged=merged["id"],
        since=since,
    )


def expected_edges(
    api: KeyedClient, ns: str, center: str, read: dict[str, Any]
) -> set[tuple[str, str, str]]:
    """The edges the page should draw, from the API's answers: lineage, who superseded
    each chain member (unless a lineage edge joins them already) and the related links."""
    edges: set[tuple[str, str, str]] = set()
    chain = read["lineage"]["chain"]
    members = {node["thoughtId"] for node in chain}
    joined: set[tuple[frozenset[str], bool]] = set()  # a pair, and whether it is a link

    def add(source: str, target: str, kind: str) -> None:
        pair = (frozenset((source, target)), kind == "RELATED_TO")
        if pair not in joined:
            joined.add(pair)
            edges.add((source, target, kind))

    for node in chain:
        for source in node["sourceIds"]:
            if source in members:
                add(node["thoughtId"], source, EDGE_FOR_TYPE[node["type"]])
    for node in chain:
        newer = api.data(SUPERSEDED_BY, ns=ns, id=node["thoughtId"])["thought"]["supersededBy"]
        if newer is not None:
            add(newer["id"], node["thoughtId"], "SUPERSEDES")
    for link in read["related"]:
        add(center, link["thought"]["id"], "RELATED_TO")
    return edges
