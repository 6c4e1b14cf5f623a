"""The OpenAI Agents SDK session against the real service on both engines: the SDK's own
Runner loads and saves the conversation through it (a fake OpenAI-compatible server plays
the model, tracing is off: nothing leaves the machine), each session sees only its own
items, items come back exactly and in order (also past one batch), pop_item and
clear_session forget thoughts the GraphQL API no longer lists, and the conversation is
searchable memory."""

from __future__ import annotations

import asyncio
import re
import runpy
from pathlib import Path
from typing import Any

import pytest
from agents import Agent, OpenAIChatCompletionsModel, Runner, function_tool, set_tracing_disabled
from agents.items import TResponseInputItem
from agents.memory import Session
from openai import AsyncOpenAI

from tests.fakes.openai_server import FakeOpenAIServer, openai_server_fixture
from tests.integrations.memory_support import assert_found_by_search
from tests.support import GraphQLClient
from thoughtgraph.integrations.openai_agents_session import ThoughtgraphSession, session_tag

openai_server = openai_server_fixture()
PAGE = Path(__file__).resolve().parents[2] / "docs" / "clients-openai-agents.md"

LISTING = """
query ($ns: String, $tag: String) {
  thoughts(namespace: $ns, filter: {tag: $tag}, first: 100, currentOnly: false) {
    nodes { id content agentId sessionId state }
  }
}"""
ONE = "query ($ns: String, $id: ID!) { thought(namespace: $ns, id: $id) { state content } }"


def remembering(messages: list[dict[str, Any]]) -> str:
    """A deterministic model: it repeats what the user said earlier in the prompt."""
    said = [m["content"] for m in messages if m["role"] == "user"]
    return f"earlier you said: {said[:-1]}"


def fake_openai(server: FakeOpenAIServer) -> AsyncOpenAI:
    """A client of the fake server (an AsyncOpenAI belongs to the event loop it is used in)."""
    return AsyncOpenAI(base_url=server.base_url, api_key="x")


def agent(client: AsyncOpenAI) -> Agent[Any]:
    set_tracing_disabled(True)  # nothing leaves the machine
    model = OpenAIChatCompletionsModel(model="chat-fake", openai_client=client)
    return Agent(name="helper", instructions="You remember.", model=model, tools=[order_status])


@function_tool
def order_status(order_id: str) -> str:
    """Where an order is."""
    return f"order {order_id} is in transit"


def tool_user(messages: list[dict[str, Any]]) -> str | dict[str, Any]:
    """A model that looks an order up before it answers: a tool call, then the tool's word."""
    if messages[-1]["role"] == "tool":
        return f"As far as I know: {messages[-1]['content']}."
    if messages[-1]["content"].startswith("Where is"):
        call = {"name": "order_status", "arguments": '{"order_id": "1234"}'}
        return {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "call-7", "type": "function", "function": call}],
        }
    return f"{len(messages)} messages"


def listed(api: GraphQLClient, ns: str, session_id: str) -> list[dict[str, Any]]:
    """The session's thoughts as the GraphQL API lists them (forgotten ones left out)."""
    data = api.data(LISTING, ns=ns, tag=session_tag(session_id))
    nodes: list[dict[str, Any]] = data["thoughts"]["nodes"]
    return nodes


async def items_of(session: ThoughtgraphSession, limit: int | None = None) -> list[Any]:
    """``get_items`` in an event loop of its own (its client closed before the loop is)."""
    items = await session.get_items(limit)
    await session.aclose()
    return items


def text(item: TResponseInputItem) -> tuple[str, str]:
    """An item's role and text, from the SDK's user input or its assistant output message."""
    data: dict[str, Any] = dict(item)
    content = data["content"]
    return data["role"], content if isinstance(content, str) else content[0]["text"]


def test_runner_keeps_the_conversation(
    api: GraphQLClient, ns: str, openai_server: FakeOpenAIServer
) -> None:
    openai_server.chat_responder = remembering

    async def turn(session_id: str, question: str) -> str:
        # A fresh session object each turn: the history can only come from the service.
        session = ThoughtgraphSession(session_id, api.base_url, namespace=ns)
        async with fake_openai(openai_server) as client:
            result = await Runner.run(agent(client), question, session=session)
        await session.aclose()
        session.close()
        return str(result.final_output)

    assert asyncio.run(turn("s-1", "Is the cache warm?")) == "earlier you said: []"
    second = asyncio.run(turn("s-1", "And the queue?"))
    assert second == "earlier you said: ['Is the cache warm?']"
    assert openai_server.chat_requests[-1].json["messages"] == [
        {"role": "system", "content": "You remember."},
        {"role": "user", "content": "Is the cache warm?"},
        {"role": "assistant", "content": "earlier you said: []"},
        {"role": "user", "content": "And the queue?"},
    ]
    assert asyncio.run(turn("other one", "Hello?")) == "earlier you said: []"  # its own

    session = ThoughtgraphSession("s-1", api.base_url, namespace=ns)
    assert [text(i) for i in asyncio.run(items_of(session))] == [
        ("user", "Is the cache warm?"),
        ("assistant", "earlier you said: []"),
        ("user", "And the queue?"),
        ("assistant", "earlier you said: ['Is the cache warm?']"),
    ]
    assert sorted(n["content"] for n in listed(api, ns, "s-1")) == [
        "assistant: earlier you said: ['Is the cache warm?']",
        "assistant: earlier you said: []",
        "user: And the queue?",
        "user: Is the cache warm?",
    ]
    assert {(n["agentId"], n["sessionId"]) for n in listed(api, ns, "s-1")} == {
        ("openai-agents-user", "s-1"),
        ("openai-agents-assistant", "s-1"),
    }
    # The conversation is memory.
    assert_found_by_search(api, ns, "cache warm", content="user: Is the cache warm?", session="s-1")
    session.close()


def test_tool_calls_and_outputs_are_kept(
    api: GraphQLClient, ns: str, openai_server: FakeOpenAIServer
) -> None:
    openai_server.chat_responder = tool_user

    async def turn(question: str) -> str:
        session = ThoughtgraphSession("tools-1", api.base_url, namespace=ns)
        async with fake_openai(openai_server) as client:
            result = await Runner.run(agent(client), question, session=session)
        await session.aclose()
        return str(result.final_output)

    assert asyncio.run(turn("Where is order 1234?")) == (
        "As far as I know: order 1234 is in transit."
    )
    assert asyncio.run(turn("Thanks!")) == "6 messages"
    sent = openai_server.chat_requests[-1].json["messages"]  # the history, tools included
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "tool", "assistant", "user"]
    assert sent[2]["tool_calls"][0]["function"]["name"] == "order_status"
    assert sent[3] == {
        "role": "tool",
        "tool_call_id": "call-7",
        "content": "order 1234 is in transit",
    }

    session = ThoughtgraphSession("tools-1", api.base_url, namespace=ns)
    items = asyncio.run(items_of(session))
    assert [dict(i).get("type", "message") for i in items] == [
        "message",
        "function_call",
        "function_call_output",
        "message",
        "message",
        "message",
    ]
    assert sorted(n["content"] for n in listed(api, ns, "tools-1")) == [
        "assistant: 6 messages",
        "assistant: As far as I know: order 1234 is in transit.",
        'tool call: order_status({"order_id": "1234"})',
        "tool output: order 1234 is in transit",
        "user: Thanks!",
        "user: Where is order 1234?",
    ]
    assert {n["agentId"] for n in listed(api, ns, "tools-1")} == {
        "openai-agents-user",
        "openai-agents-assistant",
        "openai-agents-tool",
    }
    session.close()


def test_run_sync_and_a_history_limit(
    api: GraphQLClient, ns: str, openai_server: FakeOpenAIServer
) -> None:
    openai_server.chat_responder = remembering
    session = ThoughtgraphSession("sync-1", api.base_url, namespace=ns)
    helper = agent(fake_openai(openai_server))  # run_sync runs these in one event loop
    for question in ("One?", "Two?", "Three?"):
        Runner.run_sync(helper, question, session=session)
    assert len(asyncio.run(items_of(session))) == 6

    # With a limit in its settings the SDK reads only the latest items: here the last turn.
    limited = ThoughtgraphSession(
        "sync-1", api.base_url, namespace=ns, session_settings={"limit": 2}
    )
    result = Runner.run_sync(agent(fake_openai(openai_server)), "Four?", session=limited)
    assert result.final_output == "earlier you said: ['Three?']"
    assert [text(i) for i in asyncio.run(items_of(limited, 3))] == [
        ("assistant", "earlier you said: ['One?', 'Two?']"),
        ("user", "Four?"),
        ("assistant", "earlier you said: ['Three?']"),
    ]
    session.close()
    limited.close()


def test_items_come_back_exactly_and_in_order(api: GraphQLClient, ns: str) -> None:
    session = ThoughtgraphSession("long/session ✓", api.base_url, namespace=ns)
    assert isinstance(session, Session)  # the SDK's protocol, checked at run time
    special: list[Any] = [
        {"role": "developer", "content": "Be brief."},
        {"role": "user", "content": [{"type": "input_text", "text": "parts, ünïcode \x7f"}]},
        {
            "type": "function_call",
            "call_id": "call-1",
            "name": "lookup",
            "arguments": '{"q": "x"}',
            "id": "fc-1",
            "status": "completed",
        },
        {"type": "function_call_output", "call_id": "call-1", "output": "42 \ud800 \x00"},
        {
            "type": "message",
            "role": "assistant",
            "id": "msg-1",
            "status": "completed",
            "content": [{"type": "output_text", "text": "It is 42.", "annotations": []}],
        },
    ]

    async def scenario() -> None:
        await session.add_items(special)
        assert await session.get_items() == special
        assert sorted(n["content"] for n in listed(api, ns, "long/session ✓")) == [
            "assistant: It is 42.",
            "developer: Be brief.",
            'tool call: lookup({"q": "x"})',
            "tool output: 42",  # characters the service refuses in text: blanks (stripped)
            "user: parts, ünïcode",
        ]
        assert all(n["sessionId"] is None for n in listed(api, ns, "long/session ✓"))
        many: list[Any] = [{"role": "user", "content": f"message {i}"} for i in range(150)]
        await session.add_items(many)  # two batches
        assert await session.get_items() == [*special, *many]
        assert await session.get_items(limit=3) == many[-3:]
        assert await session.get_items(limit=120) == many[-120:]  # across the batches
        assert await session.get_items(limit=152) == [*special[-2:], *many]
        assert await session.get_items(limit=1000) == [*special, *many]
        await session.aclose()

    asyncio.run(scenario())
    session.close()


def test_pop_item_and_clear_session(api: GraphQLClient, ns: str) -> None:
    session = ThoughtgraphSession("pop-1", api.base_url, namespace=ns)
    kept = ThoughtgraphSession("pop-2", api.base_url, namespace=ns)
    items: list[Any] = [{"role": "user", "content": f"note {i}"} for i in range(3)]

    async def scenario() -> None:
        await session.add_items(items[:2])
        await session.add_items(items[2:])
        await kept.add_items([{"role": "user", "content": "keep me"}])
        before = {n["content"]: n["id"] for n in listed(api, ns, "pop-1")}

        assert await session.pop_item() == items[2]
        assert await session.get_items() == items[:2]
        gone = api.data(ONE, ns=ns, id=before["user: note 2"])["thought"]
        assert gone["state"] == "SOFT_DELETED"  # forgotten in the service, restorable
        assert sorted(n["content"] for n in listed(api, ns, "pop-1")) == [
            "user: note 0",
            "user: note 1",
        ]
        assert await session.pop_item() == items[1]

        await session.clear_session()
        assert await session.get_items() == []
        assert await session.pop_item() is None
        assert listed(api, ns, "pop-1") == []
        assert [n["content"] for n in listed(api, ns, "pop-2")] == ["user: keep me"]
        assert await kept.get_items() == [{"role": "user", "content": "keep me"}]
        await session.aclose()
        await kept.aclose()

    asyncio.run(scenario())
    session.close()
    kept.close()


def test_an_item_too_large_writes_nothing(api: GraphQLClient, ns: str) -> None:
    session = ThoughtgraphSession("big", api.base_url, namespace=ns)
    items: list[Any] = [
        {"role": "user", "content": "small"},
        {"role": "assistant", "content": "x" * 10_000},
    ]
    with pytest.raises(ValueError, match="item 1 is"):
        asyncio.run(session.add_items(items))  # refused before any request
    assert listed(api, ns, "big") == []
    session.close()


def test_the_docs_example_runs(
    api: GraphQLClient, ns: str, openai_server: FakeOpenAIServer, tmp_path: Path
) -> None:
    found = re.findall(r"```python\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.S)
    assert len(found) == 1
    source = found[0].replace('"http://127.0.0.1:8000"', repr(api.base_url))
    source = source.replace(
        "AsyncOpenAI()", f"AsyncOpenAI(base_url={openai_server.base_url!r}, api_key='x')"
    )
    source, swapped = re.subn(r'namespace="([a-z-]+-example)"', rf'namespace="\1-{ns}"', source)
    assert swapped >= 1 and openai_server.base_url in source
    script = tmp_path / "example.py"
    script.write_text(source, encoding="utf-8")
    runpy.run_path(str(script), run_name="__main__")
    assert len(openai_server.chat_requests) == 2  # the model was asked twice
