"""LangChain chat history (``BaseChatMessageHistory``) kept by the service, over its client.

    history = ThoughtgraphChatMessageHistory("session-42", "http://127.0.0.1:8000")
    chain = RunnableWithMessageHistory(model, lambda sid: ThoughtgraphChatMessageHistory(sid))

Each message becomes a thought, so the conversation is memory the agent can search later:

* its ``content`` is ``"<type>: <text>"`` (``human: ...``, ``ai: ...``; up to the service's
  10,000 characters), by the agent ``langchain-<type>``, in the service session
  ``session_id`` (when it is a valid session id: letters, digits and ``_.:@-``);
* its ``context`` holds the message exactly (LangChain's ``message_to_dict``) with its
  position, which ``messages`` reads back in order; a tag ``lc.session:<digest>`` finds a
  session's messages, another, ``lc:message``, every message of the adapter;
* ``add_messages`` writes a batch in one request (``contributeMany``, 100 at a time);
  ``clear`` forgets the session's messages (restorable until the service purges them).
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from typing import Any

from langchain_core.chat_history import BaseChatMessageHistory
from langchain_core.messages import BaseMessage, message_to_dict, messages_from_dict

from thoughtgraph.client.core import DEFAULT_URL
from thoughtgraph.client.models import ContributeManyInput, Thought
from thoughtgraph.integrations.plans import (
    MAX_CONTENT,
    ClientPair,
    Plan,
    contribute_all,
    digest_tag,
    listing,
    service_session,
)

__all__ = ["ThoughtgraphChatMessageHistory", "session_tag"]

MESSAGE_TAG = "lc:message"


def session_tag(session_id: str) -> str:
    return digest_tag("lc", session_id)


class ThoughtgraphChatMessageHistory(BaseChatMessageHistory):
    """One conversation's messages, kept as thoughts in a service namespace."""

    def __init__(
        self,
        session_id: str,
        base_url: str = DEFAULT_URL,
        *,
        api_key: str | None = None,
        namespace: str = "langchain",
        timeout: float = 30.0,
    ) -> None:
        self.session_id = session_id
        self.namespace = namespace
        self.clients = ClientPair(base_url, api_key=api_key, namespace=namespace, timeout=timeout)

    # -- BaseChatMessageHistory ------------------------------------------------------------

    @property
    def messages(self) -> list[BaseMessage]:  # type: ignore[override]
        result: list[BaseMessage] = self.clients.drive(self._read())
        return result

    async def aget_messages(self) -> list[BaseMessage]:
        result: list[BaseMessage] = await self.clients.adrive(self._read())
        return result

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        self.clients.drive(self._write(messages))

    async def aadd_messages(self, messages: Sequence[BaseMessage]) -> None:
        await self.clients.adrive(self._write(messages))

    def clear(self) -> None:
        self.clients.drive(self._clear())

    async def aclear(self) -> None:
        await self.clients.adrive(self._clear())

    def close(self) -> None:
        self.clients.close()

    async def aclose(self) -> None:
        await self.clients.aclose()

    # -- plans -----------------------------------------------------------------------------

    def _read(self) -> Plan:
        thoughts = yield from listing(session_tag(self.session_id), current_only=False)
        envelopes = sorted((_envelope(t) for t in thoughts), key=lambda e: (e["at"], e["index"]))
        return messages_from_dict([e["message"] for e in envelopes])

    def _write(self, messages: Sequence[BaseMessage]) -> Plan:
        at = time.time_ns()  # one batch, one time: its order is kept by index
        inputs = [self._input(message, at, index) for index, message in enumerate(messages)]
        return (yield from contribute_all(inputs))

    def _clear(self) -> Plan:
        thoughts = yield from listing(session_tag(self.session_id), current_only=False)
        for thought in thoughts:
            yield ("forget", (thought.id,), {})
        return None

    def _input(self, message: BaseMessage, at: int, index: int) -> ContributeManyInput:
        text = message.text if isinstance(message.text, str) else str(message.content)
        envelope = {"message": message_to_dict(message), "at": at, "index": index}
        return ContributeManyInput(
            content=f"{message.type}: {text}"[:MAX_CONTENT],
            agent_id=f"langchain-{message.type}",
            agent_name=message.name or message.type,
            session_id=service_session(self.session_id),
            context=json.dumps(envelope, ensure_ascii=False),
            tags=[MESSAGE_TAG, session_tag(self.session_id)],
        )


def _envelope(thought: Thought) -> dict[str, Any]:
    envelope: dict[str, Any] = json.loads(thought.context or "{}")
    return envelope
