"""OpenAI Agents SDK session (the ``Session`` protocol) kept by the service, over its client.

    session = ThoughtgraphSession("support-42", "http://127.0.0.1:8000")
    result = await Runner.run(agent, "My order has not arrived.", session=session)

The SDK loads a session's items before each run and saves the run's new items after it.
Here each item becomes a thought, so the conversation is also memory the agent (or any
other) can search later, by meaning, next to everything else in the namespace:

* its ``content`` is readable text: ``"<role>: <text>"`` for a message (``user: ...``,
  ``assistant: ...``), a short description for anything else (``tool call: name(args)``,
  ``tool output: ...``); up to the service's 10,000 characters; by the agent
  ``openai-agents-<role or type>``, in the service session ``session_id`` (when it is a valid
  session id: letters, digits and ``_.:@-``);
* its ``context`` holds the item's exact JSON with its position, which ``get_items`` reads
  back in order; a tag ``oa.session:<digest>`` finds a session's items, another,
  ``oa:item``, every item of the adapter;
* ``add_items`` writes a batch in one request (``contributeMany``, 100 at a time);
  ``pop_item`` forgets the latest item and returns it; ``clear_session`` forgets them all
  (forgotten thoughts are restorable until the service purges them).

An item whose JSON does not fit a thought's context (about 9,900 characters) is refused with
``ValueError`` before anything of its batch is written.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Generator
from typing import Any

from agents.items import TResponseInputItem
from agents.memory.session_settings import SessionSettings, coerce_session_settings

from thoughtgraph.client.core import DEFAULT_URL
from thoughtgraph.client.models import ContributeManyInput, Thought
from thoughtgraph.integrations.plans import (
    MAX_CONTENT,
    Call,
    ClientPair,
    Plan,
    contribute_all,
    digest_tag,
    listing,
    service_session,
)

__all__ = ["ThoughtgraphSession", "session_tag"]

ITEM_TAG = "oa:item"
MAX_CONTEXT = 10_000
TOOL_TEXT = 300  # how much of a tool call or output its description shows
# Characters the service refuses in text; JSON may carry any of them as an escape.
_UNSTORABLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff\ufffe\uffff]")


def session_tag(session_id: str) -> str:
    return digest_tag("oa", session_id)


class ThoughtgraphSession:
    """One conversation's items, kept as thoughts in a service namespace: the SDK's history,
    and searchable memory too (the service's search finds what was said, by meaning)."""

    session_settings: SessionSettings | None = None

    def __init__(
        self,
        session_id: str,
        base_url: str = DEFAULT_URL,
        *,
        api_key: str | None = None,
        namespace: str = "openai-agents",
        timeout: float = 30.0,
        session_settings: SessionSettings | dict[str, Any] | None = None,
    ) -> None:
        self.session_id = session_id
        self.namespace = namespace
        self.session_settings = (
            coerce_session_settings(session_settings)
            if session_settings is not None
            else SessionSettings()
        )
        self.clients = ClientPair(base_url, api_key=api_key, namespace=namespace, timeout=timeout)
        self._last_at = 0

    # -- Session ---------------------------------------------------------------------------

    async def get_items(self, limit: int | None = None) -> list[TResponseInputItem]:
        """The session's items in order; with ``limit`` the latest ``limit`` of them."""
        envelopes: list[dict[str, Any]] = await self.clients.adrive(self._read(limit))
        return [e["item"] for e in envelopes]

    async def add_items(self, items: list[TResponseInputItem]) -> None:
        await self.clients.adrive(self._write(items))

    async def pop_item(self) -> TResponseInputItem | None:
        """Forget the latest item in the service and return it (None when there is none)."""
        popped: TResponseInputItem | None = await self.clients.adrive(self._pop())
        return popped

    async def clear_session(self) -> None:
        await self.clients.adrive(self._clear())

    def close(self) -> None:
        self.clients.close()

    async def aclose(self) -> None:
        await self.clients.aclose()

    # -- plans -----------------------------------------------------------------------------

    def _read(self, limit: int | None) -> Plan:
        """Envelopes (item, position, thought id) oldest first."""
        if limit is not None and limit <= 0:
            return []
        tag = session_tag(self.session_id)
        if limit is None:
            thoughts = yield from listing(tag, current_only=False)
        else:
            thoughts = yield from _newest(tag, limit)
        envelopes = sorted((_envelope(t) for t in thoughts), key=lambda e: (e["at"], e["index"]))
        return envelopes if limit is None else envelopes[-limit:]

    def _write(self, items: list[TResponseInputItem]) -> Plan:
        # One batch, one time (later than any batch before it): its order is kept by index.
        self._last_at = at = max(time.time_ns(), self._last_at + 1)
        inputs = [self._input(item, at, index) for index, item in enumerate(items)]
        return (yield from contribute_all(inputs))

    def _pop(self) -> Plan:
        latest = yield from self._read(1)
        if not latest:
            return None
        yield ("forget", (latest[0]["thought_id"],), {})
        return latest[0]["item"]

    def _clear(self) -> Plan:
        thoughts = yield from listing(session_tag(self.session_id), current_only=False)
        for thought in thoughts:
            yield ("forget", (thought.id,), {})
        return None

    def _input(self, item: TResponseInputItem, at: int, index: int) -> ContributeManyInput:
        data: dict[str, Any] = dict(item)
        context = _storable_json({"item": data, "at": at, "index": index})
        if len(context) > MAX_CONTEXT:
            raise ValueError(
                f"item {index} is {len(context)} characters as JSON; a thought's context keeps "
                f"{MAX_CONTEXT}: nothing of this batch was written"
            )
        speaker = _speaker(data)
        return ContributeManyInput(
            content=_UNSTORABLE.sub(" ", describe(data))[:MAX_CONTENT],
            agent_id=f"openai-agents-{speaker}"[:128],
            agent_name=speaker,
            session_id=service_session(self.session_id),
            context=context,
            tags=[ITEM_TAG, session_tag(self.session_id)],
        )


def describe(item: dict[str, Any]) -> str:
    """The readable text of an item, what search finds: ``"<role>: <text>"`` for a message,
    a short description for a tool call, a tool output or any other item."""
    kind = str(item.get("type") or "message")
    if kind == "message":
        return f"{item.get('role', 'unknown')}: {_text(item.get('content'))}"
    if kind == "function_call":
        call = f"{item.get('name', '?')}({item.get('arguments', '')})"
        return f"tool call: {_clip(call)}"
    if kind.endswith("_call_output"):
        return f"tool output: {_clip(_text(item.get('output')))}"
    summary = _text(item.get("summary"))
    return f"{kind.replace('_', ' ')}: {_clip(summary)}" if summary else kind.replace("_", " ")


def _text(content: Any) -> str:
    """A message's text: a string as it is, the text of its parts joined (``[image]`` and
    the like for parts without text)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, dict):
                text = part.get("text", part.get("refusal"))
                parts.append(str(text) if text is not None else f"[{part.get('type', 'part')}]")
            else:
                parts.append(str(part))
        return " ".join(parts)
    return json.dumps(content, ensure_ascii=False, default=str)


def _clip(text: str) -> str:
    return text if len(text) <= TOOL_TEXT else text[: TOOL_TEXT - 1] + "…"


def _speaker(item: dict[str, Any]) -> str:
    """Who an item is by, as an agent id part: its role, else its type (``tool`` for tools)."""
    kind = str(item.get("type") or "message")
    if kind == "message":
        raw = str(item.get("role", "unknown"))
    elif kind == "function_call" or kind.endswith("_call_output"):
        raw = "tool"
    else:
        raw = kind
    return re.sub(r"[^A-Za-z0-9_.:@-]", "-", raw) or "item"


def _storable_json(value: Any) -> str:
    """Compact JSON that keeps every character exactly: those the service refuses in text
    (control characters, lone surrogates) travel as JSON escapes."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return _UNSTORABLE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _newest(tag: str, count: int) -> Generator[Call, Any, list[Thought]]:
    """Enough of the newest thoughts with ``tag`` to hold its latest ``count`` items.

    The listing is newest first by creation time, which a batch shares, and a session's
    batches are created in their order: once more than ``count`` thoughts were created
    after the oldest time seen so far, those include the latest ``count`` items."""

    def holds_latest(found: list[Thought]) -> bool:
        if not found:
            return True
        oldest = min(t.created_at for t in found)
        return sum(1 for t in found if t.created_at > oldest) >= count

    return (yield from listing(tag, current_only=False, enough=holds_latest))


def _envelope(thought: Thought) -> dict[str, Any]:
    envelope: dict[str, Any] = json.loads(thought.context or "{}")
    envelope["thought_id"] = thought.id
    return envelope
