"""The typed client against the real service on both engines: every root field of the
schema is called through its method once (the test fails when one was not), answers parse
into the client's models, and refusals come back as ThoughtgraphAPIError with the
service's code."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from tests.client.support import root_fields
from tests.support import GraphQLClient
from thoughtgraph.client import AsyncThoughtgraphClient, ThoughtgraphAPIError, ThoughtgraphClient
from thoughtgraph.client.models import (
    ArtifactInput,
    ConsolidateInput,
    ContextSignalsInput,
    ContributeInput,
    ContributeManyInput,
    RecordPatternInput,
    RecordWorkflowFromEpisodeInput,
    RecordWorkflowInput,
    RefineInput,
    Resolution,
    SearchFilterInput,
    SourceFileInput,
    TemplateSlotInput,
    Thought,
    ThoughtKind,
    ThoughtType,
    TurnInput,
    WorkflowStepInput,
)

MISSING = str(uuid.uuid4())  # a well-formed id of nothing


class Recording(ThoughtgraphClient):
    """The sync client, noting which root fields it sent (to prove every one was called)."""

    called: set[str]

    def _run(self, operation: Any, variables: Any) -> Any:
        self.called.add(operation.field)
        return super()._run(operation, variables)


@pytest.fixture
def client(api: GraphQLClient, ns: str) -> Iterator[Recording]:
    with Recording(api.base_url, namespace=ns) as tg:
        tg.called = set()
        yield tg


def refused(call: Any, *args: Any, **kwargs: Any) -> str:
    with pytest.raises(ThoughtgraphAPIError) as caught:
        call(*args, **kwargs)
    return caught.value.code


def note(content: str, **fields: Any) -> ContributeInput:
    return ContributeInput(content=content, agent_id="client-test", agent_name="Client", **fields)


def test_every_root_field_answers_through_its_method(client: Recording) -> None:
    tg = client
    first = tg.contribute(note("The cache keeps entries for ten minutes.", tags=["cache"]))
    assert isinstance(first.thought, Thought) and first.thought.type is ThoughtType.ORIGINAL
    assert first.thought.namespace == tg.namespace  # the client's namespace filled the input
    second = tg.contribute(note("Deploys run every Friday at noon.", kind=ThoughtKind.DECISION))
    many = tg.contribute_many(
        [
            ContributeManyInput(content=f"Fact {i} about billing.", agent_id="a", agent_name="A")
            for i in range(3)
        ]
    )
    assert len(many) == 3 and all(p.thought.namespace == tg.namespace for p in many)
    refined = tg.refine(
        RefineInput(
            content="The cache keeps entries for five minutes.",
            agent_id="client-test",
            agent_name="Client",
            source_id=first.thought.id,
            reason="measured again",
        )
    )
    merged = tg.consolidate(
        ConsolidateInput(
            content="Billing facts 0 and 1 together.",
            agent_id="client-test",
            agent_name="Client",
            source_ids=[many[0].thought.id, many[1].thought.id],
            reason="same subject",
        )
    )
    assert merged.thought.type is ThoughtType.CONSOLIDATION

    got = tg.thought(refined.thought.id)
    assert got is not None and got.source_ids == [first.thought.id]
    assert tg.thought(MISSING) is None
    page = tg.thoughts(first=2)
    assert len(page.nodes) == 2 and page.page_info.has_next_page
    assert isinstance(tg.related(first.thought.id), list)

    hits = tg.search("how long does the cache keep entries?", k=3)
    assert hits and hits[0].thought.content.startswith("The cache keeps entries")
    tagged = tg.search("cache", filter=SearchFilterInput(tags=["cache"]))
    assert [(h.id, h.superseded) for h in tagged] == [(first.thought.id, True)]
    assert tg.search("cache", filter=SearchFilterInput(tags=["cache"]), current_only=True) == []
    tiered = tg.search_tiered("cache entries")
    assert tiered.hits
    answer = tg.recall("How long does the cache keep entries?")
    assert answer.source_ids

    lineage = tg.lineage(refined.thought.id)
    assert {n.thought_id for n in lineage.chain} >= {first.thought.id, refined.thought.id}
    assert tg.history(first.thought.id)[0].kind.value == "CREATED"
    assert isinstance(tg.search_changes("measured again"), list)
    changes = tg.changes(after_revision=0, limit=500)
    assert changes.revision >= len(changes.events) > 0
    assert tg.changes_since(changes.revision).events == []

    signals = ContextSignalsInput(query="cache")
    assembled = tg.assemble_context(budget=500, signals=signals)
    assert assembled.token_count <= 500 and assembled.revision == changes.revision
    assert tg.predict_context(signals=signals).tokenizer
    block = tg.session_block(signals=signals)
    assert block.text.startswith("<thoughtgraph-memory")
    injected = tg.inject_session_block("Hello.", signals=signals)
    assert injected.changed and injected.replaced == 0

    tg.supersede(second.thought.id, many[2].thought.id, "newer policy")
    assert tg.pin(second.thought.id).pinned
    assert tg.cite(second.thought.id, "planned the release").cite_count == 1
    assert tg.ignore(many[2].thought.id).ignore_count == 1
    forgotten = tg.forget(many[2].thought.id)
    assert forgotten.purge_at is not None
    assert tg.restore(many[2].thought.id).purge_at is None

    assert tg.topics() == [] and tg.topic(MISSING) is None
    assert tg.contradictions() == [] and tg.contradiction(MISSING) is None
    assert isinstance(tg.scan_contradictions(), bool)
    code = refused(tg.resolve_contradiction, MISSING, Resolution.A_WINS)
    assert code == "NOT_FOUND"

    episode = tg.ingest_episode(
        turns=[TurnInput(speaker="Ada", text="Let us ship on Friday.")],
        title="planning",
        artifacts=[ArtifactInput(kind="file", ref="PLAN.md")],
    )
    assert [e.id for e in tg.episodes()] == [episode.id]
    assert tg.episode(episode.id) == episode
    assert isinstance(tg.request_insights(), bool)

    run = tg.run_consolidation(dry_run=True)
    assert tg.consolidation_run(run.id) is not None
    assert [r.id for r in tg.consolidation_runs()] == [run.id]
    assert refused(tg.undo_consolidation, first.thought.id) == "INVALID_STATE"
    assert tg.merge_proposals() == []
    assert tg.propose_merge(["ana", "ben"]) == []
    assert refused(tg.decide_merge, MISSING, True, user_id="ana") == "NOT_FOUND"

    assert tg.consent_requests() == []
    assert refused(tg.approve_consent, MISSING) in {"NOT_FOUND", "FORBIDDEN"}
    assert refused(tg.reject_consent, MISSING) in {"NOT_FOUND", "FORBIDDEN"}

    saved = tg.save_checkpoint("thread-1", '{"step": 1}', metadata='{"by": "test"}')
    child = tg.save_checkpoint("thread-1", '{"step": 2}', parent_id=saved.id)
    newest = tg.checkpoint("thread-1")
    assert newest is not None and newest.id == child.id and newest.parent_id == saved.id
    assert [c.id for c in tg.checkpoints("thread-1")] == [child.id, saved.id]
    assert tg.delete_checkpoint_thread("thread-1") == 2
    assert tg.checkpoint("thread-1") is None and tg.delete_checkpoint_thread("thread-1") == 0

    assert tg.procedures(ThoughtKind.WORKFLOW) == [] and tg.procedure(MISSING) is None
    no_steps = RecordWorkflowInput(agent_id="a", agent_name="A", steps=[], trigger="releasing")
    assert refused(tg.record_workflow, no_steps) == "VALIDATION_ERROR"
    workflow = tg.record_workflow(
        RecordWorkflowInput(
            agent_id="a",
            agent_name="A",
            trigger="releasing",
            steps=[WorkflowStepInput(text="run the tests"), WorkflowStepInput(text="tag it")],
        )
    )
    assert [p.id for p in tg.procedures(ThoughtKind.WORKFLOW)] == [workflow.id]
    pattern = tg.record_pattern(
        RecordPatternInput(
            agent_id="a",
            agent_name="A",
            trigger="adding an endpoint",
            template=[TemplateSlotInput(slot="route", value="@app.get(path)")],
        )
    )
    assert tg.procedure(pattern.id) is not None
    from_episode = RecordWorkflowFromEpisodeInput(
        agent_id="a", agent_name="A", episode_id=episode.id
    )  # the api fixture's service has no language model
    assert refused(tg.record_workflow_from_episode, from_episode) == "LLM_NOT_CONFIGURED"
    foreign = [SourceFileInput(path="notes.txt", content="not code")]
    assert refused(tg.extract_patterns, foreign, "a", "A") == "UNSUPPORTED_LANGUAGE"

    assert isinstance(tg.operational_events(first=5), list)
    assert isinstance(tg.operation_counts(), list)
    assert tg.namespace in tg.namespaces()  # written to above; open local mode reads all
    spaces = tg.vector_spaces()
    assert spaces.active.dimension == 384 and spaces.next is None
    assert refused(tg.reembed, "hash", dimension=24) == "INVALID_STATE"  # no worker here

    assert tg.called == set(root_fields()), sorted(set(root_fields()) - tg.called)


def test_bad_input_raises_the_typed_error_with_the_code(client: Recording) -> None:
    with pytest.raises(ThoughtgraphAPIError) as caught:
        client.contribute(note("   "))
    assert caught.value.code == "VALIDATION_ERROR" and caught.value.codes == ["VALIDATION_ERROR"]
    assert client.thoughts().nodes == []  # nothing was written
    assert refused(client.lineage, MISSING) == "THOUGHT_NOT_FOUND"
    assert refused(client.thoughts, first=0) == "VALIDATION_ERROR"
    # The core runs any document too, with the same errors.
    document = "query($ns: String!) { thoughts(namespace: $ns, first: 1) { nodes { id } } }"
    assert client.execute(document, {"ns": client.namespace}) == {"thoughts": {"nodes": []}}
    assert refused(client.execute, "query { nope }") == "GRAPHQL_VALIDATION_FAILED"


def test_an_unreachable_service_is_a_typed_error() -> None:
    with ThoughtgraphClient("http://127.0.0.1:9", timeout=2) as tg:
        assert refused(tg.topics) == "UNAVAILABLE"


def test_the_async_client_does_the_same(api: GraphQLClient, ns: str) -> None:
    async def scenario() -> None:
        async with AsyncThoughtgraphClient(api.base_url, namespace=ns) as tg:
            made = await tg.contribute(note("Async clients await every call."))
            again = await tg.thought(made.thought.id)
            assert again == made.thought
            hits = await tg.search("do clients await calls?", k=1)
            assert [h.id for h in hits] == [made.thought.id]
            writes = await asyncio.gather(
                *(tg.contribute(note(f"Parallel note {i}.")) for i in range(4))
            )
            assert len({w.thought.id for w in writes}) == 4
            with pytest.raises(ThoughtgraphAPIError) as caught:
                await tg.forget(MISSING)
            assert caught.value.code == "THOUGHT_NOT_FOUND"
            with pytest.raises(ThoughtgraphAPIError) as bad:
                await tg.contribute(note(""))
            assert bad.value.code == "VALIDATION_ERROR"

    asyncio.run(scenario())


def test_other_namespaces_are_reached_per_call(api: GraphQLClient, ns: str) -> None:
    other = f"{ns}-other"
    with ThoughtgraphClient(api.base_url, namespace=ns) as tg:
        tg.contribute(note("Only in the other namespace.", namespace=other))
        assert tg.thoughts().nodes == []
        assert [t.content for t in tg.thoughts(namespace=other).nodes] == [
            "Only in the other namespace."
        ]
