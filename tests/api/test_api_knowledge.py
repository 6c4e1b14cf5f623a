"""Knowledge that maintains itself, through the GraphQL HTTP API of the running service, on
both engines: supersession and time views in search and listing, forgetting, restoring and
pinning, consolidation runs, contradictions, episodes and the change log naming each
subject. The HTTP service has no worker, so runs there are only queued; the last test runs
maintenance in-process over the session's stores and reads what it made through the
schema."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from tests.api.test_api_lineage import agent, revision
from tests.knowledge_support import contribute
from tests.support import GraphQLClient, LoopThread
from thoughtgraph.runtime import Runtime

UNKNOWN_ID = "00000000-0000-4000-8000-000000000000"
THOUGHT = """
  id state pinned purgeAt kind salience importance category validFrom validTo
  superseded supersededAt supersededBy { id } topic { id } episodeId
"""
SEARCH = """
query Search($q: String!, $ns: String!, $currentOnly: Boolean, $validAt: DateTime,
             $knownAt: DateTime) {
  search(query: $q, namespace: $ns, k: 10, currentOnly: $currentOnly, validAt: $validAt,
         knownAt: $knownAt) {
    id score superseded supersededBy
  }
}
"""
LIST = """
query List($ns: String!, $filter: ThoughtFilterInput, $currentOnly: Boolean) {
  thoughts(namespace: $ns, filter: $filter, currentOnly: $currentOnly) { nodes { id } }
}
"""
SUPERSEDE = f"""
mutation($ns: String!, $newer: ID!, $older: ID!, $reason: String!) {{
  supersede(namespace: $ns, newerId: $newer, olderId: $older, reason: $reason) {{ {THOUGHT} }}
}}
"""
FORGET = f"mutation($ns: String!, $id: ID!) {{ forget(namespace: $ns, id: $id) {{ {THOUGHT} }} }}"
RESTORE = f"mutation($ns: String!, $id: ID!) {{ restore(namespace: $ns, id: $id) {{ {THOUGHT} }} }}"
PIN = f"""
mutation($ns: String!, $id: ID!, $pinned: Boolean) {{
  pin(namespace: $ns, id: $id, pinned: $pinned) {{ {THOUGHT} }}
}}
"""
CONTRIBUTE = f"""
mutation($input: ContributeInput!) {{ contribute(input: $input) {{ thought {{ {THOUGHT} }} }} }}
"""
CHANGES = """
query($ns: String!, $after: Int) {
  changes(namespace: $ns, afterRevision: $after) {
    revision events { kind subjectKind subjectId thoughtId sourceIds actorId }
  }
}
"""
RUN_FIELDS = """
  id namespace status dryRun trigger requestedAt startedAt finishedAt durationMs attempts
  counts { candidates deduped assigned summarised superseded forgotten purged
           contradictionsFound links pairsJudged }
  usage { llmCalls promptTokens completionTokens costUsd }
  error
"""
RUN_CONSOLIDATION = f"""
mutation($ns: String!, $dryRun: Boolean) {{
  runConsolidation(namespace: $ns, dryRun: $dryRun) {{ {RUN_FIELDS} }}
}}
"""
RUNS = f"""
query($ns: String!, $id: ID!) {{
  consolidationRuns(namespace: $ns) {{ id status }}
  consolidationRun(namespace: $ns, id: $id) {{ {RUN_FIELDS} }}
}}
"""
EMPTY_LISTS = """
query($ns: String!) {
  contradictions(namespace: $ns, status: OPEN) { id thoughtA { id } thoughtB { id } }
  topics(namespace: $ns) { id summary thoughts { id } }
  episodes(namespace: $ns) { id }
  consolidationRuns(namespace: $ns) { id }
  topic(namespace: $ns, id: "topic-none") { id }
  contradiction(namespace: $ns, id: "c-none") { id }
  episode(namespace: $ns, id: "episode-none") { id }
  consolidationRun(namespace: $ns, id: "run-none") { id }
}
"""
RELATED = """
query($ns: String!, $id: ID!) { related(namespace: $ns, id: $id) { strength thought { id } } }
"""
INGEST = """
mutation($ns: String!, $transcript: String!, $title: String, $artifacts: [ArtifactInput!]) {
  ingestEpisode(namespace: $ns, transcript: $transcript, title: $title,
                artifacts: $artifacts) {
    id title summary compressed indexLabel extractor thoughtIds createdAt
    artifacts { kind ref }
    thoughts { id content kind episodeId }
  }
}
"""


def add(api: GraphQLClient, ns: str, content: str, **extra: Any) -> dict[str, Any]:
    """Contribute an original; the thought with the fields of this module."""
    payload = api.data(CONTRIBUTE, input=agent(ns, content, **extra))["contribute"]
    thought: dict[str, Any] = payload["thought"]
    return thought


def ids(hits: list[dict[str, Any]]) -> list[str]:
    return [hit["id"] for hit in hits]


def at(value: str) -> datetime:
    return datetime.fromisoformat(value)


def events_after(api: GraphQLClient, ns: str, after: int) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = api.data(CHANGES, ns=ns, after=after)["changes"]["events"]
    return events


def test_supersede_marks_and_ranks_the_older_and_time_views_choose_what_is_seen(
    api: GraphQLClient, ns: str
) -> None:
    older = add(api, ns, "The billing API listens on port 8080")
    newer = add(api, ns, "The billing API listens on port 9443 behind TLS")
    before = revision(api, ns)
    retired = api.data(
        SUPERSEDE, ns=ns, newer=newer["id"], older=older["id"], reason="moved behind TLS"
    )["supersede"]
    assert retired["id"] == older["id"]
    assert retired["superseded"] is True
    assert retired["supersededBy"] == {"id": newer["id"]}
    assert retired["supersededAt"] is not None

    query = "which port does the billing API listen on?"
    hits = api.data(SEARCH, q=query, ns=ns)["search"]
    assert ids(hits) == [newer["id"], older["id"]]  # the older ranked below the newer
    assert hits[1]["superseded"] is True and hits[1]["supersededBy"] == newer["id"]
    assert hits[0]["superseded"] is False and hits[0]["supersededBy"] is None

    assert ids(api.data(SEARCH, q=query, ns=ns, currentOnly=True)["search"]) == [newer["id"]]
    listed = api.data(LIST, ns=ns, currentOnly=True)["thoughts"]["nodes"]
    assert ids(listed) == [newer["id"]]
    assert ids(api.data(LIST, ns=ns)["thoughts"]["nodes"]) == [newer["id"], older["id"]]
    # Known just before the newer thought was written: only the older one existed.
    known = (at(newer["validFrom"]) - timedelta(milliseconds=1)).isoformat()
    assert ids(api.data(SEARCH, q=query, ns=ns, knownAt=known)["search"]) == [older["id"]]

    [event] = events_after(api, ns, before)
    assert event["kind"] == "SUPERSEDED"
    assert (event["subjectKind"], event["subjectId"]) == ("THOUGHT", older["id"])
    assert event["thoughtId"] == older["id"]
    assert newer["id"] in event["sourceIds"]
    assert event["actorId"] == "local"


def test_forget_hides_restore_brings_back_pin_is_shown(api: GraphQLClient, ns: str) -> None:
    thought = add(api, ns, "Deploys freeze on Friday afternoons")
    query = "when are deploys frozen?"
    before = revision(api, ns)

    forgotten = api.data(FORGET, ns=ns, id=thought["id"])["forget"]
    assert forgotten["state"] == "SOFT_DELETED"
    assert forgotten["purgeAt"] is not None
    assert api.data(SEARCH, q=query, ns=ns)["search"] == []
    assert api.data(LIST, ns=ns)["thoughts"]["nodes"] == []

    restored = api.data(RESTORE, ns=ns, id=thought["id"])["restore"]
    assert (restored["state"], restored["purgeAt"]) == ("ACTIVE", None)
    assert ids(api.data(SEARCH, q=query, ns=ns)["search"]) == [thought["id"]]
    assert ids(api.data(LIST, ns=ns)["thoughts"]["nodes"]) == [thought["id"]]

    assert thought["pinned"] is False
    assert api.data(PIN, ns=ns, id=thought["id"])["pin"]["pinned"] is True
    assert api.data(PIN, ns=ns, id=thought["id"], pinned=False)["pin"]["pinned"] is False

    events = events_after(api, ns, before)
    assert [(e["kind"], e["subjectKind"], e["subjectId"]) for e in events] == [
        (kind, "THOUGHT", thought["id"])
        for kind in ("SOFT_DELETED", "RESTORED", "PINNED", "UNPINNED")
    ]


def test_contributions_carry_kind_salience_and_world_time(api: GraphQLClient, ns: str) -> None:
    decision = api.data(
        CONTRIBUTE,
        input=agent(
            ns,
            "We adopted Postgres 16 for the ledger",
            kind="DECISION",
            salience=0.9,
            importance=5,
            pinned=True,
            category="architecture",
            validFrom="2024-01-01T00:00:00Z",
            validTo="2030-01-01T00:00:00+00:00",
        ),
    )["contribute"]["thought"]
    assert decision["kind"] == "DECISION"
    assert (decision["salience"], decision["importance"], decision["pinned"]) == (0.9, 5, True)
    assert decision["category"] == "architecture"
    assert at(decision["validFrom"]) == at("2024-01-01T00:00:00+00:00")
    assert at(decision["validTo"]) == at("2030-01-01T00:00:00+00:00")
    fact = add(api, ns, "The ledger database runs on two replicas")
    assert (fact["kind"], fact["salience"], fact["importance"]) == ("FACT", 0.5, 3)
    assert at(fact["validFrom"]) <= datetime.now(at(fact["validFrom"]).tzinfo)

    decisions = api.data(LIST, ns=ns, filter={"kind": "DECISION"})["thoughts"]["nodes"]
    assert ids(decisions) == [decision["id"]]
    query = "which database does the ledger use?"
    then = api.data(SEARCH, q=query, ns=ns, validAt="2023-06-01T00:00:00Z")["search"]
    assert decision["id"] not in ids(then)  # not yet true in the world
    assert decision["id"] in ids(api.data(SEARCH, q=query, ns=ns)["search"])


def test_run_consolidation_is_queued_and_listed(api: GraphQLClient, ns: str) -> None:
    run = api.data(RUN_CONSOLIDATION, ns=ns, dryRun=True)["runConsolidation"]
    assert run["id"].startswith("run-")
    assert (run["status"], run["dryRun"], run["trigger"]) == ("QUEUED", True, "api")
    assert (run["startedAt"], run["finishedAt"], run["durationMs"], run["error"]) == (
        None,
        None,
        None,
        None,
    )
    assert set(run["counts"].values()) == {0}
    assert run["usage"] == {
        "llmCalls": 0,
        "promptTokens": 0,
        "completionTokens": 0,
        "costUsd": 0.0,
    }
    read = api.data(RUNS, ns=ns, id=run["id"])
    assert read["consolidationRuns"] == [{"id": run["id"], "status": "QUEUED"}]
    assert read["consolidationRun"] == run
    assert api.data("mutation($ns: String!) { scanContradictions(namespace: $ns) }", ns=ns) == {
        "scanContradictions": True
    }


def test_a_fresh_namespace_has_no_knowledge_yet(api: GraphQLClient, ns: str) -> None:
    assert api.data(EMPTY_LISTS, ns=ns) == {
        "contradictions": [],
        "topics": [],
        "episodes": [],
        "consolidationRuns": [],
        "topic": None,
        "contradiction": None,
        "episode": None,
        "consolidationRun": None,
    }
    thought = add(api, ns, "Nothing links to this note yet")
    assert api.data(RELATED, ns=ns, id=thought["id"])["related"] == []
    assert thought["topic"] is None and thought["episodeId"] is None


def test_unknown_ids_are_named(api: GraphQLClient, ns: str) -> None:
    known = add(api, ns, "An original, never merged")["id"]
    resolve = """
    mutation($ns: String!) {
      resolveContradiction(namespace: $ns, id: "c-unknown", resolution: A_WINS) { id }
    }"""
    assert api.error_codes(resolve, ns=ns) == ["NOT_FOUND"]
    for document, variables in [
        (FORGET, {"id": UNKNOWN_ID}),
        (RESTORE, {"id": UNKNOWN_ID}),
        (PIN, {"id": UNKNOWN_ID}),
        (RELATED, {"id": UNKNOWN_ID}),
        (SUPERSEDE, {"newer": known, "older": UNKNOWN_ID, "reason": "r"}),
    ]:
        assert api.error_codes(document, ns=ns, **variables) == ["THOUGHT_NOT_FOUND"], document
    undo = """
    mutation($ns: String!, $id: ID!) { undoConsolidation(namespace: $ns, thoughtId: $id) { id } }
    """
    assert api.error_codes(undo, ns=ns, id=known) == ["INVALID_STATE"]
    assert api.error_codes(undo, ns=ns, id=UNKNOWN_ID) == ["THOUGHT_NOT_FOUND"]


def test_bad_input_is_refused_and_writes_nothing(api: GraphQLClient, ns: str) -> None:
    first = add(api, ns, "Caches expire after a minute")["id"]
    before = revision(api, ns)
    refused = [
        (CONTRIBUTE, {"input": agent(ns, "too salient", salience=1.5)}),
        (CONTRIBUTE, {"input": agent(ns, "too important", importance=9)}),
        (
            CONTRIBUTE,
            {
                "input": agent(
                    ns,
                    "ends before it starts",
                    validFrom="2025-01-02T00:00:00Z",
                    validTo="2025-01-01T00:00:00Z",
                )
            },
        ),
        (SUPERSEDE, {"ns": ns, "newer": first, "older": first, "reason": "itself"}),
        (SUPERSEDE, {"ns": ns, "newer": first, "older": UNKNOWN_ID, "reason": "  "}),
        (FORGET, {"ns": ns, "id": "not-a-thought-id"}),
        (PIN, {"ns": "bad namespace!", "id": first}),
        (RUN_CONSOLIDATION, {"ns": "bad namespace!"}),
        (
            EMPTY_LISTS.replace("topics(namespace: $ns)", "topics(namespace: $ns, first: 0)"),
            {"ns": ns},
        ),
    ]
    for document, variables in refused:
        codes = api.error_codes(document, **variables)
        assert codes and set(codes) == {"VALIDATION_ERROR"}, (variables, codes)
    assert revision(api, ns) == before
    assert api.data(RUNS, ns=ns, id="run-none")["consolidationRuns"] == []


def test_ingest_episode_keeps_the_narrative_and_its_thoughts(api: GraphQLClient, ns: str) -> None:
    transcript = (
        "user: The payment service times out when the bank is slow.\n"
        "assistant: We raised the client timeout to 30 seconds and added a retry.\n"
        "user: Decided: retries use exponential backoff, at most three attempts.\n"
    )
    before = revision(api, ns)
    episode = api.data(
        INGEST,
        ns=ns,
        transcript=transcript,
        title="Payment timeouts",
        artifacts=[{"kind": "pr", "ref": "#412"}],
    )["ingestEpisode"]
    assert episode["title"] == "Payment timeouts"
    assert episode["artifacts"] == [{"kind": "pr", "ref": "#412"}]
    assert episode["summary"] and episode["compressed"] and episode["indexLabel"]
    assert episode["thoughts"], episode
    assert [t["id"] for t in episode["thoughts"]] == episode["thoughtIds"][:20]
    assert {t["episodeId"] for t in episode["thoughts"]} == {episode["id"]}

    again = api.data(INGEST, ns=ns, transcript=transcript, title="Payment timeouts")
    assert again["ingestEpisode"]["id"] == episode["id"]  # the same transcript: the same one
    listed = api.data("query($ns: String!) { episodes(namespace: $ns) { id } }", ns=ns)
    assert listed["episodes"] == [{"id": episode["id"]}]
    kinds = {(e["kind"], e["subjectKind"]) for e in events_after(api, ns, before)}
    assert ("EPISODE_INGESTED", "EPISODE") in kinds
    assert api.error_codes(
        INGEST, ns=ns, transcript="x", artifacts=[{"kind": "tweet", "ref": "1"}]
    ) == ["VALIDATION_ERROR"]


# --- maintained knowledge, read and decided through the schema ---------------------------------

MAINTAINED = """
query($ns: String!, $run: ID!) {
  contradictions(namespace: $ns) {
    id status relation detector thoughtA { id content } thoughtB { id content } resolution
  }
  consolidationRun(namespace: $ns, id: $run) { status counts { deduped assigned } }
  topics(namespace: $ns) { id name thoughtCount thoughts(first: 50) { id topic { id } } }
}
"""
RESOLVE = """
mutation($ns: String!, $id: ID!) {
  resolveContradiction(namespace: $ns, id: $id, resolution: A_WINS, note: "16 rolled back") {
    status resolution note resolvedBy resolvedAt thoughtB { supersededBy { id } }
  }
}
"""
MERGED = """
query($ns: String!, $id: ID!) {
  thought(namespace: $ns, id: $id) { supersededBy { id type sources { id } } }
}
"""
UNDO = """
mutation($ns: String!, $id: ID!) {
  undoConsolidation(namespace: $ns, thoughtId: $id) { id state supersededAt supersededBy { id } }
}
"""


def test_maintained_knowledge_is_read_and_decided_through_the_schema(
    loop: LoopThread, runtime: Runtime, ns: str, tmp_path: Path
) -> None:
    from thoughtgraph.api.graphql.request_context import GraphQLContext
    from thoughtgraph.api.graphql.schema import build_schema
    from thoughtgraph.features.consolidation.jobs import run_consolidation
    from thoughtgraph.features.contradictions.jobs import scan_thoughts

    schema = build_schema(runtime.settings)

    def execute(document: str, **variables: Any) -> dict[str, Any]:
        context = GraphQLContext.for_services(runtime.services)
        result = loop.run(
            schema.execute(document, variable_values=variables, context_value=context)
        )
        assert result.errors is None, result.errors
        assert result.data is not None
        return result.data

    older = contribute(loop, runtime, ns, "The staging database runs PostgreSQL 14.")
    newer = contribute(loop, runtime, ns, "The staging database runs PostgreSQL 16.")
    loop.run(scan_thoughts(runtime, ns, [newer]))
    first = contribute(loop, runtime, ns, "Deployments go out through the GitHub Actions pipeline.")
    second = contribute(
        loop, runtime, ns, "Deployments go out through the GitHub Actions pipeline!"
    )
    (found,) = execute(MAINTAINED, ns=ns, run="run-none")["contradictions"]
    assert found["status"] == "OPEN" and found["resolution"] is None
    assert (found["thoughtA"]["id"], found["thoughtB"]["id"]) == (older, newer)
    assert found["thoughtB"]["content"] == "The staging database runs PostgreSQL 16."

    decided = execute(RESOLVE, ns=ns, id=found["id"])["resolveContradiction"]
    assert (decided["status"], decided["resolution"]) == ("RESOLVED", "A_WINS")
    assert (decided["note"], decided["resolvedBy"]) == ("16 rolled back", "local")
    assert decided["resolvedAt"] is not None
    assert decided["thoughtB"]["supersededBy"] == {"id": older}

    run = loop.run(runtime.services.consolidation.request(ns, dry_run=False, trigger="test"))
    loop.run(run_consolidation(runtime, ns, run.id, dry_run=False))
    read = execute(MAINTAINED, ns=ns, run=run.id)
    assert read["consolidationRun"]["status"] == "SUCCEEDED"
    assert read["consolidationRun"]["counts"]["deduped"] == 2
    assert read["topics"], read
    for topic in read["topics"]:
        assert topic["thoughts"] and {t["topic"]["id"] for t in topic["thoughts"]} == {topic["id"]}

    merged = execute(MERGED, ns=ns, id=first)["thought"]["supersededBy"]
    assert merged["type"] == "CONSOLIDATION"
    assert {s["id"] for s in merged["sources"]} == {first, second}
    restored = execute(UNDO, ns=ns, id=merged["id"])["undoConsolidation"]
    assert {t["id"] for t in restored} == {first, second}
    for thought in restored:
        assert thought["state"] == "ACTIVE"
        assert (thought["supersededAt"], thought["supersededBy"]) == (None, None)
