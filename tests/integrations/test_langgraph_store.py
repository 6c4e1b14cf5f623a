"""The LangGraph store against the real service on both engines: LangGraph's own graph
runtime hands it to nodes that put, search, get and delete memories, and BaseStore's whole
interface (put, get, search with and without a query and filter, list_namespaces, delete)
answers as LangGraph documents it, sync and async."""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, Any, TypedDict

from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, StateGraph
from langgraph.store.base import BaseStore

from tests.support import GraphQLClient
from thoughtgraph.client import ThoughtgraphClient
from thoughtgraph.client.models import ThoughtFilterInput
from thoughtgraph.integrations.langgraph_store import ThoughtgraphStore, item_tag


class Chat(TypedDict):
    message: str
    recalled: Annotated[list[str], operator.add]


def remember(state: Chat, config: RunnableConfig, *, store: BaseStore) -> dict[str, Any]:
    user = config["configurable"]["user_id"]
    if state["message"].startswith("remember: "):
        text = state["message"].removeprefix("remember: ")
        key = f"m{len(store.search(('memories', user), limit=100))}"
        store.put(("memories", user), key, {"text": text, "user": user})
    return {}


def recall(state: Chat, config: RunnableConfig, *, store: BaseStore) -> dict[str, Any]:
    user = config["configurable"]["user_id"]
    hits = store.search(("memories", user), query=state["message"], limit=2)
    return {"recalled": [hit.value["text"] for hit in hits]}


def chat_graph(store: BaseStore) -> Any:
    builder = StateGraph(Chat)
    builder.add_node("remember", remember)
    builder.add_node("recall", recall)
    builder.add_edge(START, "remember")
    builder.add_edge("remember", "recall")
    builder.add_edge("recall", END)
    return builder.compile(store=store)


def said(graph: Any, user: str, message: str) -> list[str]:
    config: RunnableConfig = {"configurable": {"user_id": user}}
    out = graph.invoke({"message": message, "recalled": []}, config)
    return list(out["recalled"])


def test_a_compiled_graph_keeps_and_finds_memories_per_user(api: GraphQLClient, ns: str) -> None:
    store = ThoughtgraphStore(api.base_url, namespace=ns, index_fields=["text"])
    graph = chat_graph(store)
    said(graph, "ada", "remember: I am allergic to peanuts.")
    said(graph, "ada", "remember: My favourite city is Lisbon.")
    said(graph, "bob", "remember: I drive a red bicycle.")
    assert said(graph, "ada", "Which food must I avoid?")[0] == "I am allergic to peanuts."
    assert said(graph, "ada", "Where would I like to travel?")[0] == "My favourite city is Lisbon."
    assert said(graph, "bob", "What do I ride?") == ["I drive a red bicycle."]  # his only
    assert store.list_namespaces(prefix=("memories",)) == [("memories", "ada"), ("memories", "bob")]
    store.close()


def test_the_store_interface_on_the_service(api: GraphQLClient, ns: str) -> None:
    store = ThoughtgraphStore(api.base_url, namespace=ns)
    assert store.get(("docs",), "none") is None
    store.put(("docs", "team", "a"), "plan", {"title": "Plan", "status": "draft", "n": 1})
    first = store.get(("docs", "team", "a"), "plan")
    assert first is not None and first.value == {"title": "Plan", "status": "draft", "n": 1}
    assert first.namespace == ("docs", "team", "a") and first.key == "plan"
    store.put(("docs", "team", "a"), "plan", {"title": "Plan", "status": "final", "n": 2})
    store.put(("docs", "team", "a"), "plan", {"title": "Plan", "status": "final", "n": 2})
    second = store.get(("docs", "team", "a"), "plan")
    assert second is not None and second.value["status"] == "final"
    assert second.created_at == first.created_at and second.updated_at > first.updated_at
    store.put(("docs", "team", "b"), "notes", {"title": "Notes", "status": "draft", "n": 5})
    store.put(("docs", "other"), "memo", {"title": "Memo", "status": "final", "n": 3})
    store.put(("misc",), "x", {"title": "Elsewhere", "status": "final", "n": 9})

    everything = store.search(("docs",), limit=10)
    assert sorted(i.key for i in everything) == ["memo", "notes", "plan"]  # current only
    assert [i.key for i in store.search(("docs", "team"), filter={"status": "final"})] == ["plan"]
    ranged = store.search(("docs",), filter={"n": {"$gte": 2, "$lt": 5}})
    assert sorted(i.key for i in ranged) == ["memo", "plan"]
    assert len(store.search((), limit=2)) == 2 and len(store.search((), limit=10)) == 4
    by_meaning = store.search(("docs",), query="the final plan", limit=1)
    assert [i.key for i in by_meaning] == ["plan"] and by_meaning[0].score is not None

    assert store.list_namespaces() == [
        ("docs", "other"),
        ("docs", "team", "a"),
        ("docs", "team", "b"),
        ("misc",),
    ]
    assert store.list_namespaces(prefix=("docs",), max_depth=2) == [
        ("docs", "other"),
        ("docs", "team"),
    ]
    assert store.list_namespaces(suffix=("b",)) == [("docs", "team", "b")]
    assert store.list_namespaces(prefix=("docs", "*", "a")) == [("docs", "team", "a")]

    store.delete(("docs", "team", "a"), "plan")
    assert store.get(("docs", "team", "a"), "plan") is None
    assert "plan" not in [i.key for i in store.search(("docs",), query="the final plan")]
    with ThoughtgraphClient(api.base_url, namespace=ns) as tg:  # both versions forgotten
        tag = ThoughtFilterInput(tag=item_tag(("docs", "team", "a"), "plan"))
        assert tg.thoughts(filter=tag).nodes == []
    store.put(("docs", "team", "a"), "plan", {"title": "Plan", "status": "again", "n": 0})
    again = store.get(("docs", "team", "a"), "plan")
    assert again is not None and again.value["status"] == "again"
    store.close()


def test_the_async_store_in_an_async_graph(api: GraphQLClient, ns: str) -> None:
    async def note(state: Chat, *, store: BaseStore) -> dict[str, Any]:
        await store.aput(("notes",), "latest", {"text": state["message"]})
        found = await store.asearch(("notes",), query=state["message"], limit=1)
        return {"recalled": [hit.value["text"] for hit in found]}

    async def scenario() -> None:
        store = ThoughtgraphStore(api.base_url, namespace=ns, index_fields=["text"])
        builder = StateGraph(Chat)
        builder.add_node("note", note)
        builder.add_edge(START, "note")
        builder.add_edge("note", END)
        graph = builder.compile(store=store)
        first = await graph.ainvoke({"message": "The build is green.", "recalled": []})
        assert first["recalled"] == ["The build is green."]
        second = await graph.ainvoke({"message": "The build is red now.", "recalled": []})
        assert second["recalled"] == ["The build is red now."]  # refined, not added
        assert [i.value for i in await store.asearch(("notes",))] == [
            {"text": "The build is red now."}
        ]
        await store.adelete(("notes",), "latest")
        assert await store.aget(("notes",), "latest") is None
        await store.aclose()
        store.close()

    asyncio.run(scenario())
