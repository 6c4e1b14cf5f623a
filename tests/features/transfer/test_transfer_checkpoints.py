"""Agents' checkpoints survive export and import on real engines: two users' threads (one
with a history of parents) read back through the checkpoint service after a move into the
other engine with the same history, newest first, each user seeing only their own; the
events about them keep their subject (a user's change feed shows their saves again), a
thread resumes on the target (a LangGraph graph stopped at an interruption on the
embedded engine resumes against a service on Neo4j), and importing the same file twice
changes nothing. A file written before checkpoints were exported still imports, its
events' relationships to them skipped."""

from __future__ import annotations

import contextlib
import json
import operator
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, TypedDict

import pytest
from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Command, interrupt

from tests.conftest import CONTRACT_DIMENSION
from tests.knowledge_support import make_runtime
from tests.store_backends import service_settings
from tests.support import GraphQLClient, LoopThread, serve_in_thread
from tests.transfer_support import (
    assert_same_records,
    export_records,
    fresh_falkordb,
    import_file,
    into_the_other_engine,
    revision,
)
from thoughtgraph.domain.access import Principal, Role
from thoughtgraph.domain.changes import ChangeKind, SubjectKind
from thoughtgraph.domain.checkpoints import Checkpoint
from thoughtgraph.integrations.langgraph import ThoughtgraphSaver
from thoughtgraph.llm.embedders import TextEmbedder
from thoughtgraph.runtime import Runtime
from thoughtgraph.server import create_app
from thoughtgraph.settings import EmbedderKind, Settings
from thoughtgraph.store.cypher_store import CypherGraphStore
from thoughtgraph.store.factory import open_store

SLOW_S = 600
USERS = ("alice", "bob")
# Per user, the threads saved and each one's checkpoints in order, each the next's parent.
THREADS = {
    "alice": {"plan": ["a-0", "a-1", "a-2"], "chat": ["c-0"]},
    "bob": {"plan": ["a-0", "b-1"]},  # the same client id as alice's, another checkpoint
}


def key(ns: str, user: str | None) -> Principal:
    return Principal(
        key_id=f"key-{user}",
        agent_id=f"{user}-bot",
        agent_name=f"{user} bot",
        role=Role.WRITER,
        namespaces=(ns,),
        user=user,
    )


def state(user: str, checkpoint_id: str) -> str:
    return json.dumps({"user": user, "step": checkpoint_id, "messages": ["hi", "ünïcode ✓"]})


@dataclass(frozen=True)
class Saved:
    """Each user's threads as the source answers for them: history and newest."""

    histories: dict[tuple[str, str], list[Checkpoint]]
    newest: dict[tuple[str, str], Checkpoint | None]
    events: dict[str, list[str]]  # the ids of the checkpoint events each user sees


def runtime_over(store: CypherGraphStore, embedder: TextEmbedder, tmp_path: Path) -> Runtime:
    return make_runtime(store, embedder, tmp_path)


def save_threads(loop: LoopThread, runtime: Runtime, ns: str) -> None:
    """The checkpoints of THREADS, and a thread of bob's saved and deleted (an event
    about checkpoints that are gone)."""
    service = runtime.services.checkpoints
    for user, threads in THREADS.items():
        for thread, ids in threads.items():
            parent = None
            for cid in ids:
                meta = json.dumps({"step": cid})
                loop.run(
                    service.save(
                        ns,
                        thread,
                        state(user, cid),
                        checkpoint_id=cid,
                        parent_id=parent,
                        metadata=meta,
                        caller=key(ns, user),
                    ),
                    timeout=SLOW_S,
                )
                parent = cid
    bob = key(ns, "bob")
    loop.run(service.save(ns, "scratch", state("bob", "s"), checkpoint_id="s", caller=bob))
    assert loop.run(service.delete_thread(ns, "scratch", caller=bob)) == 1


def answers(loop: LoopThread, runtime: Runtime, ns: str) -> Saved:
    """What the services answer each user (and a third one, and a key for no user) about
    every thread saved."""
    service = runtime.services.checkpoints
    threads = {thread for threads in THREADS.values() for thread in threads}
    histories: dict[tuple[str, str], list[Checkpoint]] = {}
    newest: dict[tuple[str, str], Checkpoint | None] = {}
    events: dict[str, list[str]] = {}
    for user in (*USERS, "carol", None):
        caller = key(ns, user)
        for thread in sorted(threads):
            found = loop.run(service.history(ns, thread, first=100, caller=caller))
            histories[(str(user), thread)] = found
            newest[(str(user), thread)] = loop.run(service.load(ns, thread, caller=caller))
        seen = loop.run(runtime.services.history.changes(ns, 0, 500, caller=caller))
        events[str(user)] = [e.id for e in seen if e.subject_kind is SubjectKind.CHECKPOINT]
    return Saved(histories, newest, events)


def assert_as_saved(saved: Saved) -> None:
    """Each user's threads hold what they saved, newest first, with their parents; no one
    else sees them."""
    for (user, thread), found in saved.histories.items():
        ids = THREADS.get(user, {}).get(thread, [])
        assert [c.id for c in found] == ids[::-1], (user, thread)
        assert [c.parent_id for c in found] == [None, *ids][: len(ids)][::-1]
        assert all(c.user == user and c.data == state(user, c.id) for c in found)
        revisions = [c.revision for c in found]
        assert revisions == sorted(revisions, reverse=True) and len(set(revisions)) == len(ids)
        assert saved.newest[(user, thread)] == (found[0] if found else None)
    saves = {user: sum(map(len, threads.values())) for user, threads in THREADS.items()}
    assert {user: len(ids) for user, ids in saved.events.items()} == {
        **saves,
        "carol": 0,
        "None": 0,
    }


def checkpoint_records(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in found if r["record"] == "node" and r["label"] == "Checkpoint"]


def concerning_checkpoints(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in found if r["record"] == "edge" and r["to"]["label"] == "Checkpoint"]


@pytest.mark.parametrize("source", ["falkordb", "neo4j"])
def test_checkpoints_survive_a_move_into_the_other_engine(
    request: pytest.FixtureRequest,
    loop: LoopThread,
    local_embedder: TextEmbedder,
    ns: str,
    tmp_path: Path,
    source: str,
) -> None:
    store: CypherGraphStore = request.getfixturevalue(f"{source}_store")
    runtime = runtime_over(store, local_embedder, tmp_path / "source")
    try:
        save_threads(loop, runtime, ns)
        before = answers(loop, runtime, ns)
    finally:
        loop.run(runtime.services.close())
    assert_as_saved(before)
    exported = tmp_path / "export.jsonl"
    first = export_records(loop, store, local_embedder, ns, exported)
    stored = checkpoint_records(first)
    assert len(stored) == 6  # bob's deleted scratch thread is gone
    for record in stored:
        props = record["properties"]
        assert {"user", "threadId", "checkpointId", "data", "revision", "createdAt"} <= set(props)
    edges = concerning_checkpoints(first)
    assert len(edges) == 6 and all(e["type"] == "CONCERNS" for e in edges)

    def check_target(target: CypherGraphStore) -> None:
        counts = import_file(loop, target, local_embedder, exported)
        assert counts.skipped == 0 and counts.nodes == sum(r["record"] == "node" for r in first)
        after_first = revision(loop, target, ns)
        again = export_records(loop, target, local_embedder, ns, tmp_path / "again.jsonl")
        assert_same_records(again, first)

        # Importing the same file again changes nothing.
        import_file(loop, target, local_embedder, exported)
        twice = export_records(loop, target, local_embedder, ns, tmp_path / "twice.jsonl")
        assert_same_records(twice, first)
        assert revision(loop, target, ns) == after_first

        other = runtime_over(target, local_embedder, tmp_path / "target")
        try:
            assert answers(loop, other, ns) == before
            # Alice's thread goes on where it stopped: the next save follows its newest.
            alice = key(ns, "alice")
            service = other.services.checkpoints
            loop.run(service.save(ns, "plan", state("alice", "a-3"), parent_id="a-2", caller=alice))
            resumed = loop.run(service.history(ns, "plan", caller=alice))
            assert [c.parent_id for c in resumed[:2]] == ["a-2", "a-1"]
            assert resumed[0].revision > resumed[1].revision
            assert resumed[1:] == before.histories[("alice", "plan")]
            seen = loop.run(other.services.history.changes(ns, after_first, caller=alice))
            assert [e.kind for e in seen] == [ChangeKind.CHECKPOINT_SAVED]
        finally:
            loop.run(other.services.close())

    into_the_other_engine(source, request, loop, tmp_path, CONTRACT_DIMENSION, check_target)


def test_a_file_without_checkpoints_still_imports(
    loop: LoopThread,
    falkordb_store: CypherGraphStore,
    local_embedder: TextEmbedder,
    ns: str,
    tmp_path: Path,
) -> None:
    """As an earlier release wrote it: no checkpoint nodes, and the events' relationships
    to them naming no known label. The rest imports, those relationships are skipped and
    counted, and no one has a checkpoint."""
    runtime = runtime_over(falkordb_store, local_embedder, tmp_path / "source")
    try:
        save_threads(loop, runtime, ns)
    finally:
        loop.run(runtime.services.close())
    exported = tmp_path / "export.jsonl"
    export_records(loop, falkordb_store, local_embedder, ns, exported)
    lines = exported.read_text(encoding="utf-8").splitlines()
    older = [lines[0]]
    for line in lines[1:]:
        record = json.loads(line)
        if record["record"] == "node" and record["label"] == "Checkpoint":
            continue
        if record["record"] == "edge" and record["to"]["label"] == "Checkpoint":
            record["to"]["label"] = None
        older.append(json.dumps(record))
    old = tmp_path / "old.jsonl"
    old.write_text("\n".join(older) + "\n", encoding="utf-8")

    with fresh_falkordb(loop, tmp_path / "fresh", CONTRACT_DIMENSION) as fresh:
        counts = import_file(loop, fresh, local_embedder, old)
        assert counts.nodes == sum(json.loads(line)["record"] == "node" for line in older[1:])
        assert counts.skipped == 6  # the six saves' events
        assert revision(loop, fresh, ns) == revision(loop, falkordb_store, ns)
        target = runtime_over(fresh, local_embedder, tmp_path / "target")
        try:
            found = answers(loop, target, ns)
            assert all(not history for history in found.histories.values())
            assert all(not ids for ids in found.events.values())
        finally:
            loop.run(target.services.close())


class Steps(TypedDict):
    steps: Annotated[list[str], operator.add]
    total: int


def approve(state: Steps) -> dict[str, Any]:
    answer = interrupt({"question": "go on?", "total": state["total"]})
    return {"steps": [f"approve:{answer}"], "total": state["total"] * 10}


def graph_over(saver: ThoughtgraphSaver) -> CompiledStateGraph[Any]:
    """plan, then an approval that interrupts, then act."""
    builder = StateGraph(Steps)
    builder.add_node("plan", lambda s: {"steps": ["plan"], "total": s["total"] + 1})
    builder.add_node("approve", approve)
    builder.add_node("act", lambda s: {"steps": ["act"], "total": s["total"] + 2})
    builder.add_edge(START, "plan")
    builder.add_edge("plan", "approve")
    builder.add_edge("approve", "act")
    builder.add_edge("act", END)
    return builder.compile(checkpointer=saver)


@pytest.mark.parametrize("api", ["neo4j"], indirect=True)  # the server's own database
def test_a_langgraph_thread_resumes_after_a_move_into_neo4j(
    api: GraphQLClient,
    loop: LoopThread,
    neo4j_store: CypherGraphStore,
    local_embedder: TextEmbedder,
    ns: str,
    tmp_path: Path,
) -> None:
    """A graph stops at its interruption against a service on the embedded engine; the
    service stops, its data dir is exported and imported into the Neo4j database another
    service reads, and the graph resumes there where it stopped."""
    config: RunnableConfig = {"configurable": {"thread_id": "run-1"}}
    data_dir = tmp_path / "embedded"
    settings = service_settings("falkordb", data_dir, None, embedder=EmbedderKind.LOCAL)
    with serve_in_thread(create_app(settings, embedder=local_embedder)) as base_url:
        saver = ThoughtgraphSaver(base_url, namespace=ns)
        stopped = graph_over(saver).invoke({"steps": [], "total": 1}, config)
        assert stopped["__interrupt__"][0].value == {"question": "go on?", "total": 2}
        saved = list(saver.list(config))
        saver.close()
    assert len(saved) == 3  # the input, plan, and the step stopped before approve

    exported = tmp_path / "export.jsonl"
    stack = contextlib.AsyncExitStack()
    source = loop.run(stack.enter_async_context(open_store(Settings(data_dir=data_dir))))
    try:
        export_records(loop, source, local_embedder, ns, exported)
    finally:
        loop.run(stack.aclose())
    saver = ThoughtgraphSaver(api.base_url, namespace=ns)
    try:
        graph = graph_over(saver)
        assert graph.get_state(config).next == ()  # nothing there before the import
        assert import_file(loop, neo4j_store, local_embedder, exported).skipped == 0
        moved = graph.get_state(config)
        assert moved.next == ("approve",) and moved.values == {"steps": ["plan"], "total": 2}
        assert [t.checkpoint["id"] for t in saver.list(config)] == [
            t.checkpoint["id"] for t in saved
        ]
        done = graph.invoke(Command(resume="yes"), config)
        assert done == {"steps": ["plan", "approve:yes", "act"], "total": 22}
        assert graph.get_state(config).next == ()
    finally:
        saver.close()
