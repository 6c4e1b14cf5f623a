"""Search over GraphQL on both engines (hybrid by default): filters,
modes, explanations, two tiers, cite and ignore, and the errors bad options give."""

from __future__ import annotations

from typing import Any

from tests.support import GraphQLClient

CONTRIBUTE = """
mutation($input: ContributeInput!) { contribute(input: $input) { thought { id } } }
"""
SEARCH = """
query($q: String!, $ns: String!, $filter: SearchFilterInput, $mode: RetrievalMode) {
  search(query: $q, namespace: $ns, filter: $filter, mode: $mode, hybrid: true) {
    id score similarity retention tier label detailLevel
    thought { kind citeCount ignoreCount }
    explain {
      vectorRank textRank keywordScore relevance priorFactor lineageFactor supersessionFactor
      score
    }
  }
}
"""
TIERED = """
query($q: String!, $ns: String!, $detail: DetailLevel, $limit: Int) {
  searchTiered(query: $q, namespace: $ns, detailLevel: $detail, limit: $limit) {
    detailLevel
    topics { label summary similarity topic { id } }
    hits { id label }
  }
}
"""
CITE = """
mutation($id: ID!, $ns: String!) {
  cite(thoughtId: $id, action: "fixed the alert", namespace: $ns) { id citeCount lastCitedAt }
}
"""
IGNORE = (
    "mutation($id: ID!, $ns: String!) { ignore(thoughtId: $id, namespace: $ns) { ignoreCount } }"
)


def contribute(api: GraphQLClient, ns: str, content: str, **extra: Any) -> str:
    data = api.data(
        CONTRIBUTE,
        input={"content": content, "agentId": "qa", "agentName": "QA", "namespace": ns, **extra},
    )
    return str(data["contribute"]["thought"]["id"])


def test_search_filters_modes_and_explanations(api: GraphQLClient, ns: str) -> None:
    decision = contribute(
        api, ns, "We decided to page on-call for failed deploys", kind="DECISION", tags=["ops"]
    )
    fact = contribute(api, ns, "Failed deploys are retried twice", tags=["ops", "ci"])
    hits = api.data(SEARCH, q="failed deploys", ns=ns)["search"]
    assert {h["id"] for h in hits} == {decision, fact}
    for hit in hits:
        e = hit["explain"]
        assert e["textRank"] is not None and e["vectorRank"] is not None
        assert e["keywordScore"] > 0  # both hold "failed" and "deploys" (stemmed)
        assert 0 <= e["relevance"] <= 1
        assert 0 <= hit["score"] <= 1 and 0 <= hit["similarity"] <= 1
        assert hit["tier"] == "HOT" and hit["detailLevel"] == "FULL"
        assert hit["label"] == f"Thought [{hit['thought']['kind'].lower()}]"
    only = api.data(SEARCH, q="failed deploys", ns=ns, filter={"kinds": ["DECISION"]})["search"]
    assert [h["id"] for h in only] == [decision]
    tagged = api.data(SEARCH, q="failed deploys", ns=ns, filter={"tags": ["ops", "ci"]})["search"]
    assert [h["id"] for h in tagged] == [fact]
    reflexive = api.data(SEARCH, q="failed deploys", ns=ns, mode="REFLEXIVE")["search"]
    assert {h["id"] for h in reflexive} == {decision, fact}  # new thoughts are hot


def test_hybrid_search_by_default_vector_only_when_asked(api: GraphQLClient, ns: str) -> None:
    """Full-text candidates unless hybrid: false, with or without the expansion."""
    contribute(api, ns, "Failed deploys are retried twice")
    ranks = """
    query($q: String!, $ns: String!, $hybrid: Boolean, $expand: Boolean) {
      search(query: $q, namespace: $ns, hybrid: $hybrid, expand: $expand) {
        explain { vectorRank textRank }
      }
    }
    """

    def text_ranks(**options: Any) -> list[Any]:
        hits = api.data(ranks, q="failed deploys", ns=ns, **options)["search"]
        assert hits
        return [h["explain"] and h["explain"]["textRank"] for h in hits]

    assert text_ranks() == [1]
    assert text_ranks(hybrid=False) == [None]  # no full-text side: nothing to explain
    assert text_ranks(expand=True) == [1]
    assert text_ranks(expand=True, hybrid=False) == [None]


CONTRIBUTE_MANY = """
mutation($inputs: [ContributeManyInput!]!) { contributeMany(inputs: $inputs) { thought { id } } }
"""
SCORES = """
query($q: String!, $ns: String!, $expand: Boolean) {
  search(query: $q, namespace: $ns, k: 3, expand: $expand) { id score }
}
"""


def test_search_expands_hits_from_sessions_unless_asked_not_to(api: GraphQLClient, ns: str) -> None:
    """Left out, expand is true for a conversation (turns with a session, written in one
    batch) and false for the same texts without sessions: the default's hits and scores
    are the expanded search's, or the plain search's."""
    said = [
        ("Ann", "Did you finish the painting?"),
        ("Bob", "Yes, a sunset over the lake, it took all weekend."),
        ("Ann", "I adopted a puppy last month."),
        ("Bob", "My car broke down on the way to work."),
    ]

    def write(namespace: str, session: str | None) -> None:
        inputs = [
            {"content": f"{who}: {text}", "agentId": who.lower(), "agentName": who}
            | {"namespace": namespace}
            | ({"sessionId": session} if session else {})
            for who, text in said
        ]
        api.data(CONTRIBUTE_MANY, inputs=inputs)

    def hits(namespace: str, **expand: bool) -> list[tuple[str, float]]:
        found = api.data(SCORES, q="What did Bob paint?", ns=namespace, **expand)["search"]
        # Rounded: the age prior moves a score by a hair between two calls.
        return [(hit["id"], round(hit["score"], 4)) for hit in found]

    write(ns, "s1")
    default, expanded, plain = hits(ns), hits(ns, expand=True), hits(ns, expand=False)
    assert default == expanded and default != plain
    bare = f"{ns}-bare"
    write(bare, None)
    assert hits(bare) == hits(bare, expand=False) != hits(bare, expand=True)


def test_bad_search_options_are_refused(api: GraphQLClient, ns: str) -> None:
    bad = {"importanceMin": 4, "importanceMax": 2}
    assert api.error_codes(SEARCH, q="anything", ns=ns, filter=bad) == ["VALIDATION_ERROR"]
    bad_tag = {"tags": ["(bad"]}
    assert api.error_codes(SEARCH, q="anything", ns=ns, filter=bad_tag) == ["VALIDATION_ERROR"]
    assert api.error_codes(TIERED, q="anything", ns=ns, limit=26) == ["VALIDATION_ERROR"]


def test_two_tier_search_and_usage_signals(api: GraphQLClient, ns: str) -> None:
    first = contribute(api, ns, "Backups run nightly at two")
    contribute(api, ns, "Backups are kept for thirty days")
    tiered = api.data(TIERED, q="when do backups run", ns=ns)["searchTiered"]
    assert tiered["detailLevel"] == "FULL" and first in [h["id"] for h in tiered["hits"]]
    summary = api.data(TIERED, q="when do backups run", ns=ns, detail="SUMMARY")["searchTiered"]
    assert summary["hits"] == []
    cited = api.data(CITE, id=first, ns=ns)["cite"]
    assert cited["citeCount"] == 1 and cited["lastCitedAt"] is not None
    assert api.data(IGNORE, id=first, ns=ns)["ignore"]["ignoreCount"] == 1
    ghost = "00000000-0000-4000-8000-00000000dead"
    assert api.error_codes(IGNORE, id=ghost, ns=ns) == ["THOUGHT_NOT_FOUND"]
