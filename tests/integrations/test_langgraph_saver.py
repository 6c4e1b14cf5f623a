"""The LangGraph checkpointer against the real service: a LangGraph graph stops at an
interruption, the service stops and starts again on the same data, and the graph resumes
from the checkpoints the service kept."""

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
from thoughtgraph.integrations.langgraph import ThoughtgraphSaver

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
