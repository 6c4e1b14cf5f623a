"""The LangChain chat history against the real service on both engines: LangChain's
RunnableWithMessageHistory loads and saves the conversation through it, each session sees
only its own messages, messages come back exactly and in order (also past one batch), the
conversation is searchable memory, and clear forgets it; sync and async."""

from __future__ import annotations

import asyncio
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.prompt_values import PromptValue
from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
from langchain_core.runnables import RunnableLambda
from langchain_core.runnables.history import RunnableWithMessageHistory

from tests.integrations.memory_support import assert_found_by_search
from tests.support import GraphQLClient
from thoughtgraph.integrations.langchain_history import ThoughtgraphChatMessageHistory

PROMPT = ChatPromptTemplate.from_messages(
    [("system", "You remember."), MessagesPlaceholder("history"), ("human", "{question}")]
)


def answer(prompt: PromptValue) -> AIMessage:
    """A deterministic model: it repeats the questions it was shown earlier in the prompt."""
    earlier = [m.text for m in prompt.to_messages()[1:-1] if isinstance(m, HumanMessage)]
    return AIMessage(content=f"earlier you asked: {earlier}")


def chat(api: GraphQLClient, ns: str) -> RunnableWithMessageHistory:
    def history(session_id: str) -> ThoughtgraphChatMessageHistory:
        return ThoughtgraphChatMessageHistory(session_id, api.base_url, namespace=ns)

    return RunnableWithMessageHistory(
        PROMPT | RunnableLambda(answer),
        history,
        input_messages_key="question",
        history_messages_key="history",
    )


def ask(runnable: RunnableWithMessageHistory, session: str, question: str) -> str:
    config: Any = {"configurable": {"session_id": session}}
    reply = runnable.invoke({"question": question}, config)
    return str(reply.content)


def test_runnable_with_message_history_keeps_the_conversation(api: GraphQLClient, ns: str) -> None:
    runnable = chat(api, ns)
    assert ask(runnable, "s-1", "Is the cache warm?") == "earlier you asked: []"
    assert ask(runnable, "s-1", "And the queue?") == "earlier you asked: ['Is the cache warm?']"
    assert ask(runnable, "other one", "Hello?") == "earlier you asked: []"  # its own session

    history = ThoughtgraphChatMessageHistory("s-1", api.base_url, namespace=ns)
    assert [(m.type, m.text) for m in history.messages] == [
        ("human", "Is the cache warm?"),
        ("ai", "earlier you asked: []"),
        ("human", "And the queue?"),
        ("ai", "earlier you asked: ['Is the cache warm?']"),
    ]
    # The conversation is memory.
    assert_found_by_search(
        api, ns, "cache warm", content="human: Is the cache warm?", session="s-1"
    )
    history.clear()
    assert history.messages == []
    assert ThoughtgraphChatMessageHistory("other one", api.base_url, namespace=ns).messages
    history.close()


def test_messages_come_back_exactly_and_in_order(api: GraphQLClient, ns: str) -> None:
    history = ThoughtgraphChatMessageHistory("long/session ✓", api.base_url, namespace=ns)
    tool_call = {"name": "lookup", "args": {"q": "x"}, "id": "call-1", "type": "tool_call"}
    special: list[BaseMessage] = [
        SystemMessage(content="Be brief."),
        AIMessage(content="", tool_calls=[tool_call], id="m-1"),
        HumanMessage(content=[{"type": "text", "text": "parts"}], name="ada"),
    ]
    history.add_messages(special)
    assert history.messages == special
    many = [HumanMessage(content=f"message {i}") for i in range(120)]  # two batches
    history.add_messages(many)
    assert history.messages == [*special, *many]
    history.close()


def test_the_async_path(api: GraphQLClient, ns: str) -> None:
    async def scenario() -> None:
        runnable = chat(api, ns)
        config: Any = {"configurable": {"session_id": "async-1"}}
        await runnable.ainvoke({"question": "First?"}, config)
        reply = await runnable.ainvoke({"question": "Second?"}, config)
        assert reply.content == "earlier you asked: ['First?']"
        history = ThoughtgraphChatMessageHistory("async-1", api.base_url, namespace=ns)
        assert len(await history.aget_messages()) == 4
        await history.aadd_messages([AIMessage(content="noted")])
        assert (await history.aget_messages())[-1] == AIMessage(content="noted")
        await history.aclear()
        assert await history.aget_messages() == []
        await history.aclose()
        history.close()

    asyncio.run(scenario())
