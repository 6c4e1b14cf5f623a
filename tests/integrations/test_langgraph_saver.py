"""The LangGraph checkpointer against the real service: a LangGraph graph stops at an
interruption, the service stops and starts again on the same data, and the graph resumes
from the checkpoints the service kept; a deleted thread is gone in every checkpoint
namespace with its pending writes, while another thread resumes."""

from __future__ import annotations

import asyncio
import operator
import signal
from pathlib import Path
from typing import Annotated, Any, TypedDict

import pytest
from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Command, interrupt

from tests.processes.test_serve_process import running_service
from thoughtgraph.integrations.langgraph import LIST, ThoughtgraphSaver, thread_key
from thoughtgraph.integrations.langgraph_keys import writes_key

pytestmark = pytest.mark.slow


class State(TypedDict):
    steps: Annotated[list[str], operator.add]
    total: int


def plan(state: State) -> dict[str, Any]:
    return {"steps": ["plan"], "total": state["total"] + 1}


def approve(state: State) -> dict[str, Any]:
    answer = interrupt({"question": "go on?", "total": state["total"]})
    return {"steps": [f"approve:{answer}"], "total": state["total"] * 10}


def act(state: State) -> dict[str, Any]:
    return {"steps": ["act"], "total": state["total"] + 2}


def build(saver: ThoughtgraphSaver, **compile_options: Any) -> CompiledStateGraph[Any]:
    builder = StateGraph(State)
    builder.add_node("plan", plan)
    builder.add_node("approve", approve)
    builder.add_node("act", act)
    builder.add_edge(START, "plan")
    builder.add_edge("plan", "approve")
    builder.add_edge("approve", "act")
    builder.add_edge("act", END)
    return builder.compile(checkpointer=saver, **compile_options)


def build_nested(saver: ThoughtgraphSaver) -> CompiledStateGraph[Any]:
    """The graph of ``build`` as the subgraph node ``inner`` of a parent graph: its
    checkpoints live in a checkpoint namespace of their own (``inner:<task id>``)."""
    outer = StateGraph(State)
    outer.add_node("inner", build(saver))
    outer.add_edge(START, "inner")
    outer.add_edge("inner", END)
    return outer.compile(checkpointer=saver)


def url(process_client: Any) -> str:
    return str(process_client.base_url).rstrip("/")


def test_a_graph_resumes_after_an_interrupt_across_a_service_restart(data_dir: Path) -> None:
    config: RunnableConfig = {"configurable": {"thread_id": "run-1"}}
    with running_service(data_dir, TG_SERVE_WORKER="false") as (process, client, _log):
        saver = ThoughtgraphSaver(url(client), namespace="lg")
        graph = build(saver)
        stopped = graph.invoke({"steps": [], "total": 1}, config)
        assert stopped["__interrupt__"][0].value == {"question": "go on?", "total": 2}
        state = graph.get_state(config)
        assert state.next == ("approve",)
        assert state.values == {"steps": ["plan"], "total": 2}
        assert state.tasks[0].interrupts[0].value["question"] == "go on?"
        saver.close()
        process.send_signal(signal.SIGINT)
        process.wait(timeout=30)

    with running_service(data_dir, TG_SERVE_WORKER="false") as (_process, client, _log):
        saver = ThoughtgraphSaver(url(client), namespace="lg")
        graph = build(saver)
        assert graph.get_state(config).next == ("approve",)  # kept across the restart
        done = graph.invoke(Command(resume="yes"), config)
        assert done == {"steps": ["plan", "approve:yes", "act"], "total": 22}
        final = graph.get_state(config)
        assert final.next == () and final.values == done

        history = list(saver.list(config))
        ids = [t.config["configurable"]["checkpoint_id"] for t in history]
        assert ids == sorted(ids, reverse=True)  # newest first (LangGraph's ids sort by time)
        assert [t.metadata["step"] for t in history] == [3, 2, 1, 0, -1]
        parents = [(t.parent_config or {})["configurable"]["checkpoint_id"] for t in history[:-1]]
        assert parents == ids[1:] and history[-1].parent_config is None
        assert [t.metadata["step"] for t in saver.list(config, limit=2)] == [3, 2]
        before = saver.list(config, before=history[1].config)
        assert [t.metadata["step"] for t in before] == [1, 0, -1]
        assert [t.metadata["step"] for t in saver.list(config, filter={"step": 1})] == [1]
        states = list(graph.get_state_history(config))
        assert [s.values.get("total") for s in states] == [22, 20, 2, 1, None]
        saver.close()


def test_an_async_graph_resumes_from_the_service(data_dir: Path) -> None:
    config: RunnableConfig = {"configurable": {"thread_id": "async run/1"}}  # hashed thread

    async def run(base_url: str) -> dict[str, Any]:
        saver = ThoughtgraphSaver(base_url)
        graph = build(saver, interrupt_before=["act"])
        first = await graph.ainvoke({"steps": [], "total": 1}, config)
        assert first["__interrupt__"][0].value == {"question": "go on?", "total": 2}
        await graph.ainvoke(Command(resume="ok"), config)
        assert (await graph.aget_state(config)).next == ("act",)  # stopped before act
        done = await graph.ainvoke(None, config)
        history = [t async for t in saver.alist(config)]
        assert len(history) == 5 and history[0].checkpoint["id"] > history[-1].checkpoint["id"]
        await saver.aclose()
        saver.close()
        return done

    with running_service(data_dir, TG_SERVE_WORKER="false") as (_process, client, _log):
        done = asyncio.run(run(url(client)))
    assert done == {"steps": ["plan", "approve:ok", "act"], "total": 22}


def test_a_deleted_thread_is_gone_in_every_namespace_and_another_resumes(
    data_dir: Path,
) -> None:
    doomed: RunnableConfig = {"configurable": {"thread_id": "doomed-1"}}
    hashed: RunnableConfig = {"configurable": {"thread_id": "doomed thread/2"}}  # digest keys
    kept: RunnableConfig = {"configurable": {"thread_id": "kept-1"}}
    with running_service(data_dir, TG_SERVE_WORKER="false") as (_process, client, _log):
        saver = ThoughtgraphSaver(url(client), namespace="lg")
        graph = build_nested(saver)
        for config in (doomed, hashed, kept):
            stopped = graph.invoke({"steps": [], "total": 1}, config)
            assert stopped["__interrupt__"][0].value["question"] == "go on?"

        # What the service holds for the doomed thread: checkpoints in the root and in the
        # subgraph's namespace, and pending writes (the subgraph's interrupt among them).
        inner = graph.get_state(doomed, subgraphs=True).tasks[0].state
        assert not isinstance(inner, dict) and inner is not None
        inner_config = inner.config
        namespaces = ["", inner_config["configurable"]["checkpoint_ns"]]
        assert namespaces[1].startswith("inner:")
        held = {
            (ns, t.config["configurable"]["checkpoint_id"])
            for ns in namespaces
            for t in saver.list({"configurable": {"thread_id": "doomed-1", "checkpoint_ns": ns}})
        }
        assert {ns for ns, _ in held} == set(namespaces)

        def stored(ns: str, checkpoint_id: str) -> int:
            thread = writes_key(thread_key("doomed-1", ns), checkpoint_id)
            variables = {"ns": "lg", "thread": thread, "first": 100}
            body = client.post("/graphql", json={"query": LIST, "variables": variables}).json()
            return len(body["data"]["checkpoints"])

        assert sum(stored(ns, cid) for ns, cid in held) > 0

        saver.delete_thread("doomed-1")
        assert saver.get_tuple(doomed) is None
        assert saver.get_tuple(inner_config) is None
        for ns in namespaces:
            config = {"configurable": {"thread_id": "doomed-1", "checkpoint_ns": ns}}
            assert list(saver.list(config)) == []
        assert sum(stored(ns, cid) for ns, cid in held) == 0
        assert graph.get_state(doomed).next == ()  # LangGraph sees a thread never run

        # A thread id outside the readable form is deleted the same way.
        assert saver.get_tuple(hashed) is not None
        saver.delete_thread("doomed thread/2")
        assert saver.get_tuple(hashed) is None

        # The other thread still resumes from what the service kept.
        assert graph.get_state(kept).next == ("inner",)
        done = graph.invoke(Command(resume="yes"), kept)
        assert done == {"steps": ["plan", "approve:yes", "act"], "total": 22}
        saver.delete_thread("never-run")  # nothing to delete: no error
        saver.close()


def test_an_async_delete_leaves_other_threads(data_dir: Path) -> None:
    async def run(base_url: str) -> None:
        saver = ThoughtgraphSaver(base_url)
        graph = build(saver)
        first: RunnableConfig = {"configurable": {"thread_id": "a-1"}}
        second: RunnableConfig = {"configurable": {"thread_id": "a-2"}}
        for config in (first, second):
            await graph.ainvoke({"steps": [], "total": 1}, config)
        await saver.adelete_thread("a-1")
        assert await saver.aget_tuple(first) is None
        assert [t async for t in saver.alist(first)] == []
        done = await graph.ainvoke(Command(resume="ok"), second)
        assert done == {"steps": ["plan", "approve:ok", "act"], "total": 22}
        await saver.aclose()
        saver.close()

    with running_service(data_dir, TG_SERVE_WORKER="false") as (_process, client, _log):
        asyncio.run(run(url(client)))
