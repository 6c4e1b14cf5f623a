"""Seed 000 acceptance criteria AC1-AC9, through the GraphQL HTTP API of the running service.

The service runs for real: embedded FalkorDB as a child process, the local
all-MiniLM-L6-v2 embedder, uvicorn on a loopback port. Each test has its own namespace.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.support import GraphQLClient

THOUGHT_FIELDS = """
  id type content agentId agentName context sessionId tags pheromoneWeight
  createdAt revision sourceIds superseded refinedBy { id }
"""
PAYLOAD = (
    f"thought {{ {THOUGHT_FIELDS} }} revision guidance {{ similarThoughtId similarity message }}"
)

CONTRIBUTE = f"""
mutation Contribute($input: ContributeInput!) {{ contribute(input: $input) {{ {PAYLOAD} }} }}
"""
REFINE = f"""
mutation Refine($input: RefineInput!) {{ refine(input: $input) {{ {PAYLOAD} }} }}
"""
CONSOLIDATE = f"""
mutation Consolidate($input: ConsolidateInput!) {{ consolidate(input: $input) {{ {PAYLOAD} }} }}
"""
SEARCH = """
query Search($query: String!, $namespace: String!, $k: Int, $threshold: Float) {
  search(query: $query, namespace: $namespace, k: $k, threshold: $threshold) {
    id score similarity pheromoneWeight tags refinedBy superseded thought { content type }
  }
}
"""
LINEAGE = """
query Lineage($id: ID!, $namespace: String!, $maxDepth: Int) {
  lineage(id: $id, namespace: $namespace, maxDepth: $maxDepth) {
    thoughtId truncated
    chain { thoughtId type contentPreview contributor createdAt sourceIds depth }
  }
}
"""
REVISION = """
query Revision($namespace: String!) { changes(namespace: $namespace) { revision } }
"""


def agent(ns: str, content: str, **extra: Any) -> dict[str, Any]:
    return {"content": content, "agentId": "qa", "agentName": "QA", "namespace": ns, **extra}


def contribute(api: GraphQLClient, ns: str, content: str, **extra: Any) -> dict[str, Any]:
    result: dict[str, Any] = api.data(CONTRIBUTE, input=agent(ns, content, **extra))["contribute"]
    return result


def refine(api: GraphQLClient, ns: str, source: str, content: str, **extra: Any) -> dict[str, Any]:
    result: dict[str, Any] = api.data(REFINE, input=agent(ns, content, sourceId=source, **extra))[
        "refine"
    ]
    return result


def revision(api: GraphQLClient, ns: str) -> int:
    return int(api.data(REVISION, namespace=ns)["changes"]["revision"])


def test_ac1_refinement(api: GraphQLClient, ns: str) -> None:
    source = contribute(api, ns, "Agents are monitored by status and role")["thought"]
    result = refine(api, ns, source["id"], "Agents are monitored by role only")
    thought = result["thought"]
    assert thought["type"] == "REFINEMENT"
    assert thought["sourceIds"] == [source["id"]]
    assert thought["pheromoneWeight"] == max(1.0, source["pheromoneWeight"] * 0.5)
    stored = api.data(
        "query($id: ID!, $ns: String!) { thought(id: $id, namespace: $ns) { type sourceIds } }",
        id=thought["id"],
        ns=ns,
    )["thought"]
    assert stored == {"type": "REFINEMENT", "sourceIds": [source["id"]]}


def test_ac2_consolidation(api: GraphQLClient, ns: str) -> None:
    first = contribute(api, ns, "Deploys happen on Tuesdays")["thought"]
    second = contribute(api, ns, "Deploys need a green CI run")["thought"]
    ids = [first["id"], second["id"]]
    result = api.data(
        CONSOLIDATE, input=agent(ns, "Deploys: Tuesdays, after green CI", sourceIds=ids)
    )["consolidate"]["thought"]
    assert result["type"] == "CONSOLIDATION"
    assert result["sourceIds"] == ids
    mean = (first["pheromoneWeight"] + second["pheromoneWeight"]) / 2
    assert result["pheromoneWeight"] == max(1.0, mean * 0.5)
    # The seed's /memory shape: contribute with `consolidates` routes to a consolidation.
    routed = contribute(api, ns, "Deploy policy, merged again", consolidates=ids)["thought"]
    assert routed["type"] == "CONSOLIDATION"
    assert routed["sourceIds"] == ids


@pytest.fixture
def refined_pair(api: GraphQLClient, ns: str) -> tuple[dict[str, Any], dict[str, Any]]:
    a = contribute(api, ns, "Monitor the agents by checking their status and their role")
    b = refine(
        api,
        ns,
        a["thought"]["id"],
        "Monitor the agents by checking their role only; status is unreliable",
    )
    return a["thought"], b["thought"]


def test_ac3_superseded_marking(
    api: GraphQLClient, ns: str, refined_pair: tuple[dict[str, Any], dict[str, Any]]
) -> None:
    a, b = refined_pair
    hits = {
        hit["id"]: hit
        for hit in api.data(SEARCH, query="how to monitor agents", namespace=ns)["search"]
    }
    assert set(hits) == {a["id"], b["id"]}
    assert hits[a["id"]]["refinedBy"] == b["id"]
    assert hits[a["id"]]["superseded"] is True
    assert hits[b["id"]]["superseded"] is False
    assert hits[b["id"]]["refinedBy"] is None


SEARCH_EXPLAINED = """
query Search($query: String!, $namespace: String!, $hybrid: Boolean) {
  search(query: $query, namespace: $namespace, hybrid: $hybrid) {
    id score similarity
    explain { relevance priorFactor lineageFactor supersessionFactor }
  }
}
"""


def test_ac4_score_adjustment(
    api: GraphQLClient, ns: str, refined_pair: tuple[dict[str, Any], dict[str, Any]]
) -> None:
    a, b = refined_pair
    # Plain vector search keeps seed 000's formula on the cosine similarity exactly.
    plain = api.data(
        SEARCH_EXPLAINED, query="monitor agents status role", namespace=ns, hybrid=False
    )["search"]
    by_id = {hit["id"]: hit for hit in plain}
    assert by_id[a["id"]]["score"] == pytest.approx(by_id[a["id"]]["similarity"] * 0.7)
    assert by_id[b["id"]]["score"] == pytest.approx(min(1.0, by_id[b["id"]]["similarity"] * 1.2))
    assert by_id[a["id"]]["explain"] is None
    # Hybrid search applies the same factors to its fused, weighted score.
    hits = api.data(
        SEARCH_EXPLAINED, query="monitor agents status role", namespace=ns, hybrid=True
    )["search"]
    by_id = {hit["id"]: hit for hit in hits}
    for hit_id, factor in ((a["id"], 0.7), (b["id"], 1.2)):
        e = by_id[hit_id]["explain"]
        assert e["lineageFactor"] == factor
        base = e["relevance"] * e["priorFactor"]
        assert by_id[hit_id]["score"] == pytest.approx(min(1.0, base * factor))
    assert by_id[b["id"]]["score"] > by_id[a["id"]]["score"]
    scores = [hit["score"] for hit in hits]
    assert scores == sorted(scores, reverse=True)
    assert hits[0]["id"] == b["id"]


def _chain(api: GraphQLClient, ns: str, length: int) -> list[str]:
    ids = [contribute(api, ns, "step 0 of a long-running design discussion")["thought"]["id"]]
    for step in range(1, length):
        ids.append(
            refine(api, ns, ids[-1], f"step {step} of a long-running design discussion")["thought"][
                "id"
            ]
        )
    return ids


def test_ac5_lineage_both_directions(api: GraphQLClient, ns: str) -> None:
    a, b, c = _chain(api, ns, 3)
    around_b = api.data(LINEAGE, id=b, namespace=ns)["lineage"]
    assert [(n["thoughtId"], n["depth"]) for n in around_b["chain"]] == [(a, -1), (b, 0), (c, 1)]
    assert around_b["truncated"] is False
    from_a = api.data(LINEAGE, id=a, namespace=ns)["lineage"]
    assert [(n["thoughtId"], n["depth"]) for n in from_a["chain"]] == [(a, 0), (b, 1), (c, 2)]
    node_c = from_a["chain"][2]
    assert node_c["type"] == "REFINEMENT"
    assert node_c["sourceIds"] == [b]
    assert node_c["contributor"] == "QA"
    assert node_c["contentPreview"] == "step 2 of a long-running design discussion"[:80]


def test_ac6_lineage_depth_cap(api: GraphQLClient, ns: str) -> None:
    ids = _chain(api, ns, 13)  # the first thought and 12 refinements
    capped = api.data(LINEAGE, id=ids[0], namespace=ns)["lineage"]
    beyond_root = [n for n in capped["chain"] if n["depth"] != 0]
    assert len(beyond_root) == 10
    assert [n["depth"] for n in beyond_root] == list(range(1, 11))
    assert capped["truncated"] is True
    short = api.data(LINEAGE, id=ids[0], namespace=ns, maxDepth=3)["lineage"]
    assert [n["depth"] for n in short["chain"]] == [0, 1, 2, 3]
    assert short["truncated"] is True
    upward = api.data(LINEAGE, id=ids[12], namespace=ns)["lineage"]
    assert min(n["depth"] for n in upward["chain"]) == -10
    assert upward["truncated"] is True


def test_ac7_refinement_suggestion(api: GraphQLClient, ns: str) -> None:
    first = contribute(api, ns, "The staging database is reset every night at 2am UTC")
    assert first["guidance"] is None
    second = contribute(api, ns, "The staging database is reset every night at 2 am UTC.")
    guidance = second["guidance"]
    assert guidance is not None
    assert guidance["similarThoughtId"] == first["thought"]["id"]
    assert guidance["similarity"] > 0.85
    assert "refine" in guidance["message"]
    assert first["thought"]["id"] in guidance["message"]
    assert second["thought"]["type"] == "ORIGINAL"  # suggested, never blocked
    assert second["thought"]["id"] != first["thought"]["id"]
    unrelated = contribute(api, ns, "Bananas are rich in potassium")
    assert unrelated["guidance"] is None


def test_ac8_backward_compatible_contribution(api: GraphQLClient, ns: str) -> None:
    result = contribute(
        api, ns, "A plain contribution", context="ctx", sessionId="s1", tags=["x", "y"]
    )
    thought = result["thought"]
    assert thought["type"] == "ORIGINAL"
    assert thought["sourceIds"] == []
    assert thought["pheromoneWeight"] == 1.0
    assert thought["superseded"] is False
    assert thought["refinedBy"] is None
    assert (thought["context"], thought["sessionId"], thought["tags"]) == ("ctx", "s1", ["x", "y"])
    assert result["revision"] == 1


def test_ac9_validation_errors_write_nothing(api: GraphQLClient, ns: str) -> None:
    existing = contribute(api, ns, "Something already stored")["thought"]["id"]
    other = contribute(api, ns, "Something else already stored")["thought"]["id"]
    unknown = "00000000-0000-4000-8000-000000000000"
    before = revision(api, ns)
    cases: list[tuple[str, str, dict[str, Any]]] = [
        ("THOUGHT_NOT_FOUND", REFINE, agent(ns, "x", sourceId=unknown)),
        ("THOUGHT_NOT_FOUND", CONSOLIDATE, agent(ns, "x", sourceIds=[existing, unknown])),
        ("THOUGHT_NOT_FOUND", CONTRIBUTE, agent(ns, "x", refines=unknown)),
        (
            "MUTUAL_EXCLUSION",
            CONTRIBUTE,
            agent(ns, "x", refines=existing, consolidates=[existing, other]),
        ),
        ("MIN_CONSOLIDATION", CONSOLIDATE, agent(ns, "x", sourceIds=[existing])),
        ("MIN_CONSOLIDATION", CONTRIBUTE, agent(ns, "x", consolidates=[existing])),
        ("VALIDATION_ERROR", REFINE, agent(ns, "x", sourceId="not-a-uuid")),
        ("VALIDATION_ERROR", CONTRIBUTE, agent(ns, "   ")),
        ("VALIDATION_ERROR", CONTRIBUTE, agent(ns, "x" * 10_001)),
        ("VALIDATION_ERROR", CONSOLIDATE, agent(ns, "x", sourceIds=[existing, existing])),
        (
            "VALIDATION_ERROR",
            CONSOLIDATE,
            agent(ns, "x", sourceIds=[existing] + [unknown[:-2] + f"{i:02d}" for i in range(50)]),
        ),
        ("VALIDATION_ERROR", CONTRIBUTE, {**agent(ns, "x"), "namespace": "bad namespace!"}),
        ("VALIDATION_ERROR", CONTRIBUTE, agent(ns, "x", tags=["t"] * 0 + [""])),
    ]
    for code, operation, payload in cases:
        assert api.error_codes(operation, input=payload) == [code], (code, payload)
    # Queries reject bad input with the same code.
    assert api.error_codes(SEARCH, query="q", namespace=ns, k=0) == ["VALIDATION_ERROR"]
    assert api.error_codes(SEARCH, query="q", namespace=ns, k=101) == ["VALIDATION_ERROR"]
    assert api.error_codes(SEARCH, query="", namespace=ns) == ["VALIDATION_ERROR"]
    assert api.error_codes(LINEAGE, id=existing, namespace=ns, maxDepth=11) == ["VALIDATION_ERROR"]
    assert api.error_codes(LINEAGE, id=unknown, namespace=ns) == ["THOUGHT_NOT_FOUND"]
    # Nothing was written, nothing was lost.
    assert revision(api, ns) == before
    page = api.data(
        "query($ns: String!) { thoughts(namespace: $ns, first: 50) { nodes { id } } }", ns=ns
    )["thoughts"]["nodes"]
    assert {node["id"] for node in page} == {existing, other}
