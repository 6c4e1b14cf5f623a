"""The LlamaIndex memory block against the real service on both engines: LlamaIndex's own
Memory flushes its oldest messages into the block, which keeps them as thoughts (read back
through the GraphQL API), and Memory.get / aget bring back the remembered messages relevant
to the latest one and not the others; sessions are kept apart unless the block reads the
whole namespace, superseded thoughts are left out or marked, a flush past one batch is kept
whole, and the example of docs/clients-llamaindex.md runs as written."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import re
import runpy
from pathlib import Path
from typing import Any

from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.memory import Memory
from llama_index.core.storage.chat_store.base_db import MessageStatus

from tests.support import GraphQLClient
from thoughtgraph.client import ThoughtgraphClient
from thoughtgraph.client.models import RefineInput
from thoughtgraph.integrations.llamaindex_memory import ThoughtgraphMemoryBlock, session_tag

PAGE = Path(__file__).resolve().parents[2] / "docs" / "clients-llamaindex.md"
THOUGHTS = """
query($ns: String!, $tag: String!, $after: String) {
  thoughts(namespace: $ns, filter: {tag: $tag}, first: 100, after: $after) {
    nodes { id content agentId agentName sessionId tags context }
    pageInfo { hasNextPage endCursor }
  }
}"""
# One fact a turn, each answered in its own words, by the word that names it: a search about
# one fact finds its turn only.
FACTS = {
    "coffee": ("I take my coffee black, without sugar.", "Noted: black coffee, no sugar."),
    "Biscuit": ("My dog is a beagle called Biscuit.", "Biscuit the beagle, got it."),
    "Thursday": ("Our team deploys to production on Thursdays.", "Thursday deploys, noted."),
    "peanut": ("I am allergic to peanuts.", "I will remember the peanut allergy."),
    "Lisbon": ("My favourite city is Lisbon in Portugal.", "Lisbon, a lovely city."),
}
TURNS = list(FACTS.values())
TODAY = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d")
CLOSING = [("Thanks, that is all for now.", "You are welcome.")]


def unrelated(lines: list[str], topic: str) -> list[str]:
    """The lines about another fact than the topic's."""
    return [line for line in lines if any(word in line for word in FACTS if word != topic)]


def turns(pairs: list[tuple[str, str]]) -> list[ChatMessage]:
    messages: list[ChatMessage] = []
    for question, reply in pairs:
        messages.append(ChatMessage(role="user", content=question))
        messages.append(ChatMessage(role="assistant", content=reply))
    return messages


def memory(block: ThoughtgraphMemoryBlock, session: str, **options: Any) -> Memory:
    """LlamaIndex's Memory with a small short-term window, so older turns flush to the block;
    tokens are counted as words (no tiktoken, nothing fetched)."""
    settings: dict[str, Any] = {
        "token_limit": 60,
        "chat_history_token_ratio": 0.3,
        "token_flush_size": 10,
        **options,
    }
    return Memory.from_defaults(
        session_id=session, memory_blocks=[block], tokenizer_fn=str.split, **settings
    )


def kept(api: GraphQLClient, ns: str, tag: str) -> list[dict[str, Any]]:
    """Every thought with the tag, through the GraphQL API, oldest first."""
    found: list[dict[str, Any]] = []
    after: str | None = None
    while True:
        page = api.data(THOUGHTS, ns=ns, tag=tag, after=after)["thoughts"]
        found.extend(page["nodes"])
        if not page["pageInfo"]["hasNextPage"]:
            return sorted(found, key=lambda t: place(t["context"]))
        after = page["pageInfo"]["endCursor"]


def place(context: str) -> tuple[int, int]:
    """Where a message was in the conversation: its flush's time, its place in the flush."""
    kept_as = json.loads(context)
    return kept_as["at"], kept_as["index"]


def remembered(messages: list[ChatMessage], name: str = "thoughtgraph") -> list[str]:
    """The block's lines in the system message Memory.get built."""
    system = next(m for m in messages if m.role == "system")
    text = system.content or ""
    block = re.search(rf"<{name}>(.*?)</{name}>", text, re.S)
    assert block is not None, text
    return [line.strip() for line in block.group(1).splitlines() if line.strip().startswith("- ")]


def test_flushed_messages_become_thoughts(api: GraphQLClient, ns: str) -> None:
    block = ThoughtgraphMemoryBlock(base_url=api.base_url, namespace=ns)
    mem = memory(block, "ada")
    for message in turns(TURNS + CLOSING):
        mem.put(message)

    flushed = mem.get_all(status=MessageStatus.ARCHIVED)
    active = mem.get_all(status=MessageStatus.ACTIVE)
    assert len(flushed) >= 8 and active  # most turns left short-term memory, the last stayed
    thoughts = kept(api, ns, session_tag("ada"))
    assert [t["content"] for t in thoughts] == [f"{m.role.value}: {m.content}" for m in flushed]
    user, assistant = thoughts[0], thoughts[1]
    assert user["content"] == "user: I take my coffee black, without sugar."
    assert (user["agentId"], user["agentName"], user["sessionId"]) == (
        "llamaindex-user",
        "user",
        "ada",
    )
    assert assistant["agentId"] == "llamaindex-assistant"
    assert sorted(user["tags"]) == sorted(["li:message", session_tag("ada")])
    assert json.loads(user["context"])["session"] == "ada"
    active_texts = {f"{m.role.value}: {m.content}" for m in active}
    assert not active_texts & {t["content"] for t in thoughts}  # only what was flushed
    block.close()


def test_get_brings_back_the_relevant_memories(api: GraphQLClient, ns: str) -> None:
    block = ThoughtgraphMemoryBlock(base_url=api.base_url, namespace=ns, k=2)
    mem = memory(block, "ada")
    mem.put_messages(turns(TURNS + CLOSING))

    got = mem.get(input="How do I take my coffee?")
    assert [m.role.value for m in got] == ["system", "user", "assistant"]  # + the last turn
    assert remembered(got) == [
        f"- [{TODAY}] user: I take my coffee black, without sugar.",
        f"- [{TODAY}] assistant: Noted: black coffee, no sugar.",
    ]
    # by meaning, with no word in common: the pet is the dog, shipping is deploying
    pet = remembered(mem.get(input="tell me about my pet"))
    assert "Biscuit" in pet[0] and not unrelated(pet, "Biscuit"), pet
    ship = remembered(mem.get(input="when do we ship?"))
    assert "Thursday" in ship[0] and not unrelated(ship, "Thursday"), ship
    block.close()


def test_sessions_are_kept_apart_unless_the_namespace_is_asked(api: GraphQLClient, ns: str) -> None:
    block = ThoughtgraphMemoryBlock(base_url=api.base_url, namespace=ns, k=2)
    ada, bob = memory(block, "ada"), memory(block, "bob")  # one block, two memories
    ada.put_messages(turns(TURNS + CLOSING))
    bob.put_messages(
        turns([("I drink green tea every morning before work.", "Green tea, noted."), *CLOSING])
    )

    assert all("tea" in line for line in remembered(bob.get(input="What do I drink?")))
    assert all("coffee" in line for line in remembered(ada.get(input="What do I drink?")))
    assert [t["content"] for t in kept(api, ns, session_tag("bob"))] == [
        "user: I drink green tea every morning before work.",
        "assistant: Green tea, noted.",
    ]
    assert {t["sessionId"] for t in kept(api, ns, session_tag("ada"))} == {"ada"}
    assert memory(block, "carol").get(input="What do I drink?") == []  # nothing remembered

    everyone = ThoughtgraphMemoryBlock(
        base_url=api.base_url, namespace=ns, scope="namespace", k=4, name="shared"
    )
    lines = remembered(memory(everyone, "carol").get(input="What do we drink?"), "shared")
    assert any("green tea" in line for line in lines) and any("coffee" in line for line in lines)
    block.close()
    everyone.close()


def test_superseded_thoughts_are_left_out_or_marked(api: GraphQLClient, ns: str) -> None:
    block = ThoughtgraphMemoryBlock(base_url=api.base_url, namespace=ns, k=1)
    mem = memory(block, "ada")
    mem.put_messages(turns(TURNS + CLOSING))
    old = next(t for t in kept(api, ns, session_tag("ada")) if "coffee black" in t["content"])
    with ThoughtgraphClient(api.base_url, namespace=ns) as tg:  # another agent corrects it
        tg.refine(
            RefineInput(
                content="user: I take my coffee with oat milk now.",
                agent_id="curator",
                agent_name="Curator",
                source_id=old["id"],
                tags=["li:message", session_tag("ada")],
            )
        )
    assert remembered(mem.get(input="How do I take my coffee?")) == [
        f"- [{TODAY}] user: I take my coffee with oat milk now."
    ]
    marking = ThoughtgraphMemoryBlock(
        base_url=api.base_url, namespace=ns, k=4, include_superseded=True
    )
    lines = remembered(memory(marking, "ada").get(input="How do I take my coffee?"))
    assert f"- [{TODAY}] user: I take my coffee black, without sugar. (superseded)" in lines
    assert f"- [{TODAY}] user: I take my coffee with oat milk now." in lines
    block.close()
    marking.close()


def test_a_flush_past_one_batch_is_kept_whole(api: GraphQLClient, ns: str) -> None:
    block = ThoughtgraphMemoryBlock(base_url=api.base_url, namespace=ns)
    # a flush as large as the limit: one flush carries every message but the last turn; the
    # session id is no service session id, so the session is its tag only
    options = {"token_limit": 2000, "chat_history_token_ratio": 0.01, "token_flush_size": 2000}
    mem = memory(block, "long run ✓", **options)
    pairs = [(f"Question number {i}.", f"Answer number {i}.") for i in range(70)]
    mem.put_messages(turns(pairs))

    flushed = mem.get_all(status=MessageStatus.ARCHIVED)
    assert len(flushed) == 138  # one flush, two requests (the service takes 100 at most)
    thoughts = kept(api, ns, session_tag("long run ✓"))
    assert [t["content"] for t in thoughts] == [f"{m.role.value}: {m.content}" for m in flushed]
    assert {t["sessionId"] for t in thoughts} == {None}
    assert {json.loads(t["context"])["session"] for t in thoughts} == {"long run ✓"}
    block.close()


def test_a_block_over_the_limit_drops_its_least_relevant_lines(api: GraphQLClient, ns: str) -> None:
    whole = ThoughtgraphMemoryBlock(base_url=api.base_url, namespace=ns, k=5)
    memory(whole, "ada").put_messages(turns(TURNS + CLOSING))
    lines = remembered(memory(whole, "ada").get(input="How do I take my coffee?"))
    assert len(lines) == 5

    # priority 1: Memory may truncate it; its limit a few tokens (words) short of the block
    words = len("\n".join([whole.header, *lines]).split())
    truncatable = ThoughtgraphMemoryBlock(base_url=api.base_url, namespace=ns, k=5, priority=1)
    fresh = memory(truncatable, "ada", token_limit=words - 3)  # no short-term messages
    shorter = remembered(fresh.get(input="How do I take my coffee?"))
    assert len(shorter) == 4 and set(shorter) < set(lines)
    assert "coffee black" in shorter[0]

    # which lines go: the last ones, the least relevant; nothing left, no block
    content = "\n".join([whole.header, *lines])
    assert asyncio.run(whole.atruncate(content, 3)) == "\n".join([whole.header, *lines[:4]])
    assert asyncio.run(whole.atruncate(content, 10_000)) is None
    whole.close()
    truncatable.close()


def test_the_async_path(api: GraphQLClient, ns: str) -> None:
    async def scenario() -> None:
        block = ThoughtgraphMemoryBlock(base_url=api.base_url, namespace=ns, k=2)
        mem = memory(block, "async-1")
        for message in turns(TURNS + CLOSING):
            await mem.aput(message)
        lines = remembered(await mem.aget(input="Which city do I love?"))
        assert "Lisbon" in lines[0] and not unrelated(lines, "Lisbon"), lines
        await block.aclose()
        block.close()

    asyncio.run(scenario())
    assert len(kept(api, ns, session_tag("async-1"))) >= 8


def test_the_docs_example_runs(api: GraphQLClient, ns: str, tmp_path: Path) -> None:
    examples = re.findall(r"```python\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.S)
    assert len(examples) == 1 and "Memory.from_defaults(" in examples[0]
    source = examples[0].replace('"http://127.0.0.1:8000"', repr(api.base_url))
    source, swapped = re.subn(r'namespace="([a-z-]+-example)"', rf'namespace="\1-{ns}"', source)
    assert swapped == 1
    script = tmp_path / "example.py"
    script.write_text(source, encoding="utf-8")
    runpy.run_path(str(script), run_name="__main__")
