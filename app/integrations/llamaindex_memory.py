"""LlamaIndex long-term memory (a ``BaseMemoryBlock``) kept by the service, over its client.

    block = ThoughtgraphMemoryBlock(base_url="http://127.0.0.1:8000", namespace="support")
    memory = Memory.from_defaults(session_id="ada", memory_blocks=[block], token_limit=4000)

LlamaIndex's ``Memory`` keeps the recent messages itself and flushes the oldest ones into its
memory blocks; this block turns them into thoughts and brings back the relevant ones:

* ``_aput``: each flushed message with text becomes a thought in ``namespace``: its
  ``content`` is ``"<role>: <text>"`` (``user: ...``, ``assistant: ...``; up to the
  service's 10,000 characters), by the agent ``llamaindex-<role>``, in the service session
  of the memory's session id (when it is a valid one: letters, digits and ``_.:@-``),
  tagged ``li:message`` (every message of the adapter) and ``li.session:<digest>`` (the
  memory's session); its ``context`` keeps the role, the session id and the message's
  place in its flush. A flush is one request (``contributeMany``, 100 at a time).
* ``_aget``: the text of the latest ``query_messages`` messages is the query of the
  service's default search (hybrid: by meaning and by words), ``k`` hits, within the
  session's tag (``scope="session"``) or the whole namespace (``scope="namespace"``: what
  any agent wrote there). It returns one line a thought, most relevant first:
  ``- [2026-11-26] user: I take my coffee black``. Superseded thoughts (refined or
  consolidated since) are left out, or with ``include_superseded`` kept and marked.

The session is the block's ``session_id`` when given, else the ``Memory``'s (LlamaIndex hands
it to every block), so one block serves many memories, each kept apart. Both methods use the
async client (``Memory``'s sync methods run them in an event loop of their own).
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from typing import Any, Literal

from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.bridge.pydantic import Field, PrivateAttr
from llama_index.core.memory import BaseMemoryBlock

from thoughtgraph.client.core import DEFAULT_URL
from thoughtgraph.client.models import ContributeManyInput, SearchFilterInput, SearchHit
from thoughtgraph.integrations.plans import (
    MAX_CONTENT,
    ClientPair,
    Plan,
    contribute_all,
    digest_tag,
    service_session,
)

__all__ = ["ThoughtgraphMemoryBlock", "session_tag"]

MESSAGE_TAG = "li:message"
DEFAULT_SESSION = "default"  # the session of messages put with no session at all
MAX_QUERY = 2_000  # the service's longest search query
MAX_LINE = 500  # a remembered thought's line in the prompt, at most
CHARS_PER_TOKEN = 3  # atruncate's estimate: low, so it drops a line too many, not too few


def session_tag(session_id: str) -> str:
    return digest_tag("li", session_id)


class ThoughtgraphMemoryBlock(BaseMemoryBlock[str]):
    """Long-term memory of a LlamaIndex ``Memory``, kept as thoughts in a service namespace."""

    name: str = Field(default="thoughtgraph", description="The block's name in the prompt.")
    description: str | None = Field(
        default="Earlier messages of the conversation, kept by thoughtgraph and searched.",
    )
    base_url: str = Field(default=DEFAULT_URL, description="The service's URL.")
    api_key: str | None = Field(default=None, exclude=True, repr=False)
    namespace: str = Field(default="llamaindex", description="The service namespace.")
    session_id: str | None = Field(
        default=None, description="The session to keep; None: the Memory's session id."
    )
    scope: Literal["session", "namespace"] = Field(
        default="session", description="Search the session's messages or the whole namespace."
    )
    k: int = Field(default=5, ge=1, le=100, description="How many thoughts to bring back.")
    query_messages: int = Field(
        default=3, ge=1, description="How many of the latest messages make the search query."
    )
    include_superseded: bool = Field(
        default=False, description="Keep superseded thoughts, marked, instead of leaving them out."
    )
    header: str = Field(
        default="Remembered from earlier (most relevant first):",
        description="The line above the remembered thoughts; empty for none.",
    )
    timeout: float = Field(default=30.0, description="Seconds per request.")

    _clients: ClientPair = PrivateAttr()

    def model_post_init(self, context: Any, /) -> None:
        self._clients = ClientPair(
            self.base_url, api_key=self.api_key, namespace=self.namespace, timeout=self.timeout
        )

    # -- BaseMemoryBlock ---------------------------------------------------------------------

    async def _aget(
        self,
        messages: list[ChatMessage] | None = None,
        session_id: str | None = None,
        **block_kwargs: Any,
    ) -> str:
        query = _query(messages or [], self.query_messages)
        if not query:
            return ""
        session = self.session_id or session_id or DEFAULT_SESSION
        hits: list[SearchHit] = await self._clients.adrive(self._search(query, session))
        if not hits:
            return ""
        lines = [self._line(hit) for hit in hits]
        return "\n".join([self.header, *lines] if self.header else lines)

    async def _aput(self, messages: list[ChatMessage]) -> None:
        inputs = self._inputs(messages)
        if inputs:
            await self._clients.adrive(contribute_all(inputs))

    async def atruncate(self, content: str, tokens_to_truncate: int) -> str | None:
        """Drops the least relevant lines (the last ones) until about enough tokens are saved;
        None when no remembered line is left."""
        lines = content.split("\n")
        kept = 1 if self.header and lines and lines[0] == self.header else 0
        saved = 0
        while len(lines) > kept and saved < tokens_to_truncate * CHARS_PER_TOKEN:
            saved += len(lines.pop()) + 1
        return "\n".join(lines) if len(lines) > kept else None

    def close(self) -> None:
        self._clients.close()

    async def aclose(self) -> None:
        await self._clients.aclose()

    # -- plans -------------------------------------------------------------------------------

    def _search(self, query: str, session: str) -> Plan:
        tags = [session_tag(session)] if self.scope == "session" else None
        hits = yield (
            "search",
            (query,),
            {
                "k": self.k,
                "current_only": not self.include_superseded,
                "filter": SearchFilterInput(tags=tags) if tags else None,
            },
        )
        return hits

    def _inputs(self, messages: Sequence[ChatMessage]) -> list[ContributeManyInput]:
        at = time.time_ns()  # one flush, one time: its order is kept by index
        inputs: list[ContributeManyInput] = []
        for index, message in enumerate(messages):
            text = (message.content or "").strip()
            if not text:  # tool calls, images, audio: nothing to remember as text
                continue
            role = message.role.value
            session = self.session_id or message.additional_kwargs.get("session_id")
            session = str(session or DEFAULT_SESSION)
            context = {"role": role, "session": session, "at": at, "index": index}
            inputs.append(
                ContributeManyInput(
                    content=f"{role}: {text}"[:MAX_CONTENT],
                    agent_id=f"llamaindex-{role}",
                    agent_name=role,
                    session_id=service_session(session),
                    context=json.dumps(context, ensure_ascii=False),
                    tags=[MESSAGE_TAG, session_tag(session)],
                )
            )
        return inputs

    def _line(self, hit: SearchHit) -> str:
        text = " ".join(hit.thought.content.split())
        if len(text) > MAX_LINE:
            text = text[: MAX_LINE - 1] + "…"
        marker = " (superseded)" if hit.superseded else ""
        return f"- [{hit.thought.created_at:%Y-%m-%d}] {text}{marker}"


def _query(messages: Sequence[ChatMessage], latest: int) -> str:
    """The text of the latest messages that have text, newest last, cut to the service's
    longest query from the front (the newest words count most)."""
    texts = [m.content.strip() for m in messages if m.content and m.content.strip()]
    return "\n".join(texts[-latest:])[-MAX_QUERY:].strip()
