"""Operational events (seed 001, section 14) through the real API on both engines: each
operation leaves one event in the graph, readable and countable over GraphQL, kept to
the namespace's limit, and never among the thoughts."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from tests.support import GraphQLClient, eventually, serve_in_thread
from thoughtgraph.llm.embedders import TextEmbedder
from thoughtgraph.server import create_app
from thoughtgraph.settings import EmbedderKind, Settings

CONTRIBUTE = """
mutation($ns: String!, $content: String!, $category: String) {
  contribute(input: {namespace: $ns, content: $content, agentId: "agent-1",
                     agentName: "Agent", category: $category}) { thought { id } }
}"""
SEARCH = """query($ns: String!, $q: String!) {
  search(namespace: $ns, query: $q) { thought { id } similarity } }"""
ASSEMBLE = """query($ns: String!, $q: String!) {
  assembleContext(namespace: $ns, signals: {query: $q}) { tokenCount } }"""
INGEST = """mutation($ns: String!, $transcript: String!) {
  ingestEpisode(namespace: $ns, transcript: $transcript) { id thoughtIds } }"""
EVENTS = """
query($ns: String!, $node: OpsNode, $op: String, $first: Int, $since: DateTime) {
  operationalEvents(namespace: $ns, node: $node, op: $op, first: $first, since: $since) {
    id node op status memoryId category similarity at
  }
}"""
COUNTS = """query($ns: String!, $bucket: Int) {
  operationCounts(namespace: $ns, bucketSeconds: $bucket) {
    bucketStart node op status count
  }
}"""
THOUGHTS = """query($ns: String!) { thoughts(namespace: $ns, first: 100) { nodes { id } } }"""


def events(api: GraphQLClient, ns: str, **variables: Any) -> list[dict[str, Any]]:
    return list(api.data(EVENTS, ns=ns, **variables)["operationalEvents"])


def contribute(api: GraphQLClient, ns: str, content: str, category: str | None = None) -> str:
    data = api.data(CONTRIBUTE, ns=ns, content=content, category=category)
    return str(data["contribute"]["thought"]["id"])


def test_each_operation_leaves_an_event(api: GraphQLClient, ns: str) -> None:
    first = contribute(api, ns, "The billing service retries payment calls twice.", "ops")
    # Nearly the same text: its nearest neighbour is the first, and the event says how near.
    second = contribute(api, ns, "The billing service retries payment calls two times.")
    hits = api.data(SEARCH, ns=ns, q="billing retries")["search"]
    api.data(ASSEMBLE, ns=ns, q="billing")
    episode = api.data(
        INGEST, ns=ns, transcript="Alice: the deploy failed.\nBob: the cache was cold."
    )["ingestEpisode"]

    expected = 2 + 1 + 1 + 1 + len(episode["thoughtIds"])

    def all_recorded() -> list[dict[str, Any]] | None:
        got = events(api, ns, first=100)
        return got if len(got) >= expected else None

    found = eventually(all_recorded, what=f"{expected} events")
    assert len(found) == expected
    assert [e["at"] for e in found] == sorted((e["at"] for e in found), reverse=True)
    by_memory = {e["memoryId"]: e for e in found if e["memoryId"]}
    assert by_memory[first] == {**by_memory[first], "node": "HOTPATH", "op": "create"}
    assert by_memory[first]["status"] == "OK" and by_memory[first]["category"] == "ops"
    assert by_memory[second]["similarity"] > 0.85  # the first was its best neighbour
    searches = events(api, ns, node="HOTPATH", op="search")
    assert len(searches) == 1
    assert searches[0]["memoryId"] == hits[0]["thought"]["id"]
    assert abs(searches[0]["similarity"] - hits[0]["similarity"]) < 1e-6
    # The assembly's own searches are one context event, not hotpath searches.
    context = events(api, ns, node="CONTEXT")
    assert [(e["op"], e["status"]) for e in context] == [("search", "OK")]
    episodic = events(api, ns, node="EPISODIC")
    assert {e["memoryId"] for e in episodic} == {episode["id"], *episode["thoughtIds"]}
    assert {e["op"] for e in episodic} == {"create"}

    counts = api.data(COUNTS, ns=ns, bucket=3600)["operationCounts"]
    tally: dict[tuple[str, str], int] = {}
    for row in counts:
        key = (row["node"], row["op"])
        tally[key] = tally.get(key, 0) + row["count"]
    assert tally == {
        ("HOTPATH", "create"): 2,
        ("HOTPATH", "search"): 1,
        ("CONTEXT", "search"): 1,
        ("EPISODIC", "create"): 1 + len(episode["thoughtIds"]),
    }
    # Events are not knowledge: the thoughts are exactly the ones written.
    thoughts = api.data(THOUGHTS, ns=ns)["thoughts"]["nodes"]
    assert {t["id"] for t in thoughts} == {first, second, *episode["thoughtIds"]}


def test_events_since_a_time_and_bad_arguments(api: GraphQLClient, ns: str) -> None:
    contribute(api, ns, "A thought written before the cut.")
    before = eventually(lambda: events(api, ns), what="the first event")
    contribute(api, ns, "A thought written after the cut.")
    eventually(lambda: len(events(api, ns)) == 2, what="the second event")
    later = events(api, ns, since=before[0]["at"])
    assert len(later) >= 1 and all(e["at"] >= before[0]["at"] for e in later)
    assert events(api, ns, since="2999-01-01T00:00:00Z") == []
    assert api.error_codes(EVENTS, ns=ns, first=0) == ["VALIDATION_ERROR"]
    assert api.error_codes(COUNTS, ns=ns, bucket=0) == ["VALIDATION_ERROR"]
    assert api.error_codes(EVENTS, ns="not a namespace") == ["VALIDATION_ERROR"]


def test_a_namespace_keeps_its_newest_events(
    engine_settings: Callable[..., Settings], local_embedder: TextEmbedder, ns: str
) -> None:
    settings = engine_settings(embedder=EmbedderKind.LOCAL, ops_events_keep=3)
    with serve_in_thread(create_app(settings, embedder=local_embedder)) as base_url:
        api = GraphQLClient(base_url, settings.engine)
        try:
            written = [contribute(api, ns, f"Fact number {i} about the ledger.") for i in range(7)]
            newest = set(written[-3:])

            def kept() -> bool:
                return {e["memoryId"] for e in events(api, ns, first=100)} == newest

            eventually(kept, what="only the 3 newest events kept")
            assert len(events(api, ns, first=100)) == 3
        finally:
            api.close()


def test_reading_an_unwritten_namespace_leaves_no_event(api: GraphQLClient, ns: str) -> None:
    """An event would create the namespace (a graph, its indexes) a typo only read."""
    assert api.data(SEARCH, ns=ns, q="anything")["search"] == []
    api.data(ASSEMBLE, ns=ns, q="anything")
    contribute(api, f"{ns}-probe", "Written after the reads: its event shows they flushed.")
    eventually(lambda: events(api, f"{ns}-probe"), what="the probe's event")
    time.sleep(0.5)  # beyond the recorder's flush interval (0.2 s)
    assert events(api, ns) == []
