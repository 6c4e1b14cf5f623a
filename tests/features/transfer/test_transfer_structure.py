"""What newer features keep survives export and import on real engines: a workflow's
steps and a code pattern's template and files (procedures), the source an extracted fact
names (extraction), a change to a person field held for consent and a proposal to merge
two users' private near-duplicates, read back through their services after a round trip
into the other engine (a workflow over GraphQL too), and after an import that re-embeds
for another embedder. A file written before these existed (without those fields and
nodes) still imports."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CONTRACT_DIMENSION
from tests.fakes.openai_server import FakeOpenAIServer
from tests.knowledge_support import make_runtime
from tests.support import GraphQLClient, LoopThread
from tests.transfer_support import (
    assert_same_records,
    export_records,
    fresh_falkordb,
    import_file,
    into_the_other_engine,
)
from thoughtgraph.domain.access import Principal, Role
from thoughtgraph.domain.consent import ConsentStatus
from thoughtgraph.domain.models import ThoughtKind, ThoughtType
from thoughtgraph.domain.procedures import Procedure, TemplateSlot, WorkflowStep
from thoughtgraph.domain.scopes import Scope
from thoughtgraph.features.procedures.service import Authoring
from thoughtgraph.features.thoughts.inputs import ThoughtInput
from thoughtgraph.llm.embedders import TextEmbedder
from thoughtgraph.runtime import Runtime
from thoughtgraph.store.cypher_store import CypherGraphStore

SLOW_S = 600
DEPLOY = [
    WorkflowStep("test", "pnpm test --coverage"),
    WorkflowStep("build", "docker build -t app:$SHA ."),
    WorkflowStep("stage"),
    WorkflowStep("prod", "promote the staged image"),
]
HANDLER = [
    TemplateSlot("route", "@router.get(path)"),
    TemplateSlot("validation", "schema.parse(body)"),
    TemplateSlot("response", "return json(result)"),
]
LONG = (
    "Quick update from the platform sync: we moved the nightly backups of the billing "
    "database from 02:00 to 03:30 UTC, Priya now owns the on-call rotation for payments, "
    "and the old Jenkins server is switched off on Friday."
)
FACTS = [
    {"content": "Nightly backups of the billing database run at 03:30 UTC.", "importance": 4},
    {"content": "Priya owns the on-call rotation for payments.", "category": "on-call"},
]


@dataclass(frozen=True)
class Written:
    """What one namespace holds: the procedures by id, the facts with their source, the
    pending consent request and the merge proposal."""

    procedures: dict[str, Procedure]
    facts: list[str]
    contribution: str
    request: str
    proposal: str


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as running:
        yield running


def runtime_over(
    store: CypherGraphStore, embedder: TextEmbedder, tmp_path: Path, server: FakeOpenAIServer
) -> Runtime:
    return make_runtime(
        store,
        embedder,
        tmp_path,
        llm_model="openai/test-model",
        llm_api_base=server.base_url,
        llm_api_key="test",
        llm_cache=False,
    )


def key(ns: str, name: str) -> Principal:
    """Alice and bob act for their user; admin for none."""
    return Principal(
        key_id=f"key-{name}",
        agent_id=f"{name}-bot",
        agent_name=f"{name.title()} Bot",
        role=Role.ADMIN if name == "admin" else Role.WRITER,
        namespaces=(ns,),
        user=name if name in ("alice", "bob") else None,
    )


def structure_written_over(
    loop: LoopThread,
    store: CypherGraphStore,
    embedder: TextEmbedder,
    server: FakeOpenAIServer,
    ns: str,
    tmp_path: Path,
) -> Written:
    """``write_structure`` through a runtime of its own over ``store``, closed after."""
    runtime = runtime_over(store, embedder, tmp_path / "source", server)
    try:
        return write_structure(loop, runtime, server, ns)
    finally:
        loop.run(runtime.services.close())


def write_structure(
    loop: LoopThread, runtime: Runtime, server: FakeOpenAIServer, ns: str
) -> Written:
    """A workflow and its refinement, a code pattern with files, facts the extraction
    took from a long contribution, a change to Alice's city Bob proposed (held for her
    consent) and a merge proposal for Alice's and Bob's private near-duplicates (through
    the services, as a request and the worker)."""
    s = runtime.services
    author = Authoring(namespace=ns, agent_id="agent-1", agent_name="Agent")
    refining = Authoring(namespace=ns, agent_id="agent-1", agent_name="Agent", reason="faster")
    deploy = loop.run(s.procedures.record_workflow(author, "deploy", DEPLOY), timeout=SLOW_S)
    faster = loop.run(
        s.procedures.record_workflow(refining, "deploy", DEPLOY[:2], refines=deploy.thought.id),
        timeout=SLOW_S,
    )
    pattern = loop.run(
        s.procedures.record_pattern(
            author, "an HTTP handler", HANDLER, files=["api/users.py", "api/orders.py"]
        ),
        timeout=SLOW_S,
    )
    contribution = ThoughtInput(
        content=LONG, agent_id="planner", agent_name="Planner", namespace=ns
    )
    source = loop.run(s.thoughts.contribute(contribution, extract=True), timeout=SLOW_S)
    server.queue_chat(json.dumps({"facts": FACTS}))
    extracted = loop.run(s.extraction.extract(ns, source.thought.id), timeout=SLOW_S)
    assert len(extracted.written) == 2, extracted

    alice, bob = key(ns, "alice"), key(ns, "bob")
    city = ThoughtInput(
        content="Alice lives in Lisbon",
        agent_id="x",
        agent_name="x",
        namespace=ns,
        category="city",
        scope=Scope.PRIVATE,
    )
    loop.run(s.thoughts.contribute(city, caller=alice), timeout=SLOW_S)
    moved = replace(city, content="Alice lives in Porto", scope=Scope.SHARED, about="alice")
    held = loop.run(s.thoughts.contribute(moved, caller=bob), timeout=SLOW_S).consent_request
    assert held is not None
    offsite = replace(city, content="The quarterly offsite is in Sintra in May", category=None)
    for user in (alice, bob):
        loop.run(s.thoughts.contribute(offsite, caller=user), timeout=SLOW_S)
    proposed = loop.run(s.proposals.propose(ns, ["alice", "bob"], caller=key(ns, "admin")))
    assert len(proposed) == 1, proposed
    procedures = {p.thought.id: p for p in (deploy, faster, pattern)}
    return Written(procedures, extracted.written, source.thought.id, held.id, proposed[0].id)


def assert_kept(loop: LoopThread, runtime: Runtime, ns: str, written: Written) -> None:
    """The target answers as the source did: each procedure with its structure through the
    procedures service, each fact naming the contribution it was taken from."""
    s = runtime.services
    for procedure_id, expected in written.procedures.items():
        found = loop.run(s.procedures.get(ns, procedure_id), timeout=SLOW_S)
        assert found is not None, procedure_id
        assert found.spec == expected.spec
        assert found.thought.content == expected.thought.content
    workflows = loop.run(s.procedures.listing(ns, ThoughtKind.WORKFLOW), timeout=SLOW_S)
    assert [w.spec.steps for w in workflows] == [tuple(DEPLOY[:2])]  # the refinement only
    facts = loop.run(runtime.repos.thoughts.get_many(ns, written.facts), timeout=SLOW_S)
    assert set(facts) == set(written.facts)
    for fact in facts.values():
        assert fact.type is ThoughtType.ORIGINAL
        assert fact.source_ids == (written.contribution,)
        assert fact.is_current
    pending = loop.run(s.consent.requests(ns, ConsentStatus.PENDING), timeout=SLOW_S)
    assert [(r.id, r.value) for r in pending] == [(written.request, "Alice lives in Porto")]
    proposals = loop.run(s.proposals.of_caller(ns, None), timeout=SLOW_S)
    assert [p.id for p in proposals] == [written.proposal]
    assert len(proposals[0].parts) == 2


def thought_properties(found: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {
        r["id"]: r["properties"] for r in found if r["record"] == "node" and r["label"] == "Thought"
    }


@pytest.mark.parametrize("source", ["falkordb", "neo4j"])
def test_what_features_keep_survives_a_round_trip_into_the_other_engine(
    request: pytest.FixtureRequest,
    loop: LoopThread,
    local_embedder: TextEmbedder,
    server: FakeOpenAIServer,
    ns: str,
    tmp_path: Path,
    source: str,
) -> None:
    store: CypherGraphStore = request.getfixturevalue(f"{source}_store")
    written = structure_written_over(loop, store, local_embedder, server, ns, tmp_path)
    exported = tmp_path / "export.jsonl"
    first = export_records(loop, store, local_embedder, ns, exported)
    stored = thought_properties(first)
    for procedure_id in written.procedures:
        assert stored[procedure_id]["procedureTrigger"], stored[procedure_id]
    for fact in written.facts:
        assert stored[fact]["sourceIds"] == [written.contribution]

    def check_target(target: CypherGraphStore) -> None:
        counts = import_file(loop, target, local_embedder, exported)
        assert not counts.reembedded and counts.skipped == 0 and counts.held == 0
        again = export_records(loop, target, local_embedder, ns, tmp_path / "again.jsonl")
        assert_same_records(again, first)
        other = runtime_over(target, local_embedder, tmp_path / "target", server)
        try:
            assert_kept(loop, other, ns, written)
        finally:
            loop.run(other.services.close())

    into_the_other_engine(source, request, loop, tmp_path, CONTRACT_DIMENSION, check_target)


def test_an_import_that_re_embeds_keeps_the_structure(
    loop: LoopThread,
    falkordb_store: CypherGraphStore,
    local_embedder: TextEmbedder,
    server: FakeOpenAIServer,
    ns: str,
    tmp_path: Path,
) -> None:
    written = structure_written_over(loop, falkordb_store, local_embedder, server, ns, tmp_path)
    original = tmp_path / "original.jsonl"
    first = export_records(loop, falkordb_store, local_embedder, ns, original)
    # The same file as another (8-dimensional) embedder would have written it.
    lines = original.read_text(encoding="utf-8").splitlines()
    rewritten = [json.dumps(json.loads(lines[0]) | {"embedder": "other:tiny", "dimension": 8})]
    for line in lines[1:]:
        record = json.loads(line)
        if "vector" in record:
            record["vector"] = [0.5] * 8
        rewritten.append(json.dumps(record))
    other = tmp_path / "other.jsonl"
    other.write_text("\n".join(rewritten) + "\n", encoding="utf-8")

    with fresh_falkordb(loop, tmp_path / "fresh", CONTRACT_DIMENSION) as fresh:
        assert import_file(loop, fresh, local_embedder, other).reembedded
        again = export_records(loop, fresh, local_embedder, ns, tmp_path / "again.jsonl")
        assert thought_properties(again) == thought_properties(first)
        target = runtime_over(fresh, local_embedder, tmp_path / "target", server)
        try:
            assert_kept(loop, target, ns, written)
        finally:
            loop.run(target.services.close())


NEWER_LABELS = {"MergeProposal", "ConsentRequest"}


def as_written_before(record: dict[str, Any]) -> dict[str, Any] | None:
    """The record as an export before procedures, extraction, proposals and consent wrote
    it: thoughts without those fields, no proposal or request nodes (nor the proposals'
    relationships), and the events' relationships to them naming no known label."""
    if record["record"] == "node" and record["label"] in NEWER_LABELS:
        return None
    if record["record"] == "node" and record["label"] == "Thought":
        props = record["properties"]
        kept = {k: v for k, v in props.items() if not k.startswith("procedure")}
        return record | {"properties": {k: v for k, v in kept.items() if k != "sourceIds"}}
    if record["record"] == "edge" and record["from"]["label"] in NEWER_LABELS:
        return None
    if record["record"] == "edge" and record["to"]["label"] in NEWER_LABELS:
        return record | {"to": {"label": None, "id": record["to"]["id"]}}
    return record


def test_a_file_written_before_these_fields_still_imports(
    loop: LoopThread,
    falkordb_store: CypherGraphStore,
    local_embedder: TextEmbedder,
    server: FakeOpenAIServer,
    ns: str,
    tmp_path: Path,
) -> None:
    """Without the procedure fields, sourceIds, proposals and consent requests, the
    thoughts come in as plain ones (readable, no procedure, no source named), and the
    events' relationships to what the file does not hold are skipped."""
    written = structure_written_over(loop, falkordb_store, local_embedder, server, ns, tmp_path)
    exported = tmp_path / "export.jsonl"
    export_records(loop, falkordb_store, local_embedder, ns, exported)
    lines = exported.read_text(encoding="utf-8").splitlines()
    older = [lines[0]]
    for line in lines[1:]:
        record = as_written_before(json.loads(line))
        if record is not None:
            older.append(json.dumps(record))
    old = tmp_path / "old.jsonl"
    old.write_text("\n".join(older) + "\n", encoding="utf-8")

    with fresh_falkordb(loop, tmp_path / "fresh", CONTRACT_DIMENSION) as fresh:
        counts = import_file(loop, fresh, local_embedder, old)
        assert counts.nodes == sum(json.loads(line)["record"] == "node" for line in older[1:])
        assert counts.skipped == 2  # the events requesting consent and proposing the merge
        target = runtime_over(fresh, local_embedder, tmp_path / "target", server)
        try:
            ids = [*written.procedures, *written.facts]
            thoughts = loop.run(target.repos.thoughts.get_many(ns, ids), timeout=SLOW_S)
            assert set(thoughts) == set(ids)
            assert all(t.source_ids == () for f, t in thoughts.items() if f in written.facts)
            for procedure_id in written.procedures:
                assert loop.run(target.services.procedures.get(ns, procedure_id)) is None
        finally:
            loop.run(target.services.close())


PROCEDURE = """query($ns: String!, $id: ID!) {
  procedure(namespace: $ns, id: $id) { id kind trigger hint steps { text detail } } }"""


@pytest.mark.parametrize("api", ["neo4j"], indirect=True)  # the server's own database
def test_an_imported_workflow_answers_over_graphql(
    api: GraphQLClient,
    loop: LoopThread,
    falkordb_store: CypherGraphStore,
    neo4j_store: CypherGraphStore,
    local_embedder: TextEmbedder,
    server: FakeOpenAIServer,
    ns: str,
    tmp_path: Path,
) -> None:
    """A workflow recorded on the embedded engine, imported into the Neo4j database a
    running service reads: ``procedure(id)`` over HTTP answers with its steps."""
    runtime = runtime_over(falkordb_store, local_embedder, tmp_path / "source", server)
    author = Authoring(namespace=ns, agent_id="agent-1", agent_name="Agent")
    try:
        recorded = loop.run(
            runtime.services.procedures.record_workflow(author, "deploy", DEPLOY),
            timeout=SLOW_S,
        )
    finally:
        loop.run(runtime.services.close())
    exported = tmp_path / "export.jsonl"
    export_records(loop, falkordb_store, local_embedder, ns, exported)
    assert api.data(PROCEDURE, ns=ns, id=recorded.thought.id)["procedure"] is None

    import_file(loop, neo4j_store, local_embedder, exported)
    found = api.data(PROCEDURE, ns=ns, id=recorded.thought.id)["procedure"]
    assert found == {
        "id": recorded.thought.id,
        "kind": "WORKFLOW",
        "trigger": "deploy",
        "hint": "deploy: test→build→stage→prod",
        "steps": [{"text": step.text, "detail": step.detail} for step in DEPLOY],
    }
