"""What the framework adapters share: one plan of client calls run sync or async.

An adapter writes each operation once, as a generator (a plan) that yields client calls
(a method name and its arguments), is sent their answers and returns the result; ``drive``
runs it on ThoughtgraphClient, ``adrive`` on AsyncThoughtgraphClient.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
from collections.abc import Callable, Generator
from typing import Any

from thoughtgraph.client import AsyncThoughtgraphClient, ThoughtgraphClient
from thoughtgraph.client.models import ContributeManyInput, Thought, ThoughtFilterInput

__all__ = [
    "Call",
    "ClientPair",
    "Plan",
    "contribute_all",
    "digest_tag",
    "listing",
    "service_session",
]

Call = tuple[str, tuple[Any, ...], dict[str, Any]]
Plan = Generator[Call, Any, Any]
PAGE = 100  # the service's largest page of thoughts
BATCH = 100  # the service's largest contributeMany
MAX_CONTENT = 10_000  # the service's longest thought
_SESSION_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:@-]{0,127}")  # the service's session ids


def service_session(session_id: str) -> str | None:
    """A framework's session id as the service's ``sessionId``, when it is a valid one."""
    return session_id if _SESSION_ID.fullmatch(session_id) else None


def digest_tag(prefix: str, session_id: str) -> str:
    """The tag of an adapter's session (``lc.session:<digest>``): any session id fits."""
    digest = hashlib.sha256(session_id.encode("utf-8")).hexdigest()[:32]
    return f"{prefix}.session:{digest}"


def contribute_all(inputs: list[ContributeManyInput]) -> Plan:
    """``inputs`` written in order, a batch per request."""
    for start in range(0, len(inputs), BATCH):
        yield ("contribute_many", (inputs[start : start + BATCH],), {})
    return None


class ClientPair:
    """A sync client and an async one, with the same settings. An httpx.AsyncClient
    belongs to the event loop it was made in: the async client is kept for the first loop
    that drives a plan; a plan driven in another loop (a framework running each sync call
    in a loop of its own, as LlamaIndex does inside a running loop) gets a client of its
    own, closed when the plan ends: at most one client (the first loop's) is ever left open
    on a finished loop, however many loops come and go."""

    def __init__(self, base_url: str, **options: Any) -> None:
        self.base_url = base_url
        self.options = options
        self.sync = ThoughtgraphClient(base_url, **options)
        self._async: tuple[asyncio.AbstractEventLoop, AsyncThoughtgraphClient] | None = None

    def drive(self, plan: Plan) -> Any:
        try:
            name, args, kwargs = next(plan)
            while True:
                name, args, kwargs = plan.send(getattr(self.sync, name)(*args, **kwargs))
        except StopIteration as done:
            return done.value

    async def adrive(self, plan: Plan) -> Any:
        loop = asyncio.get_running_loop()
        if self._async is None:
            self._async = (loop, AsyncThoughtgraphClient(self.base_url, **self.options))
        if self._async[0] is loop:
            return await self._run(self._async[1], plan)
        async with AsyncThoughtgraphClient(self.base_url, **self.options) as client:
            return await self._run(client, plan)

    @staticmethod
    async def _run(client: AsyncThoughtgraphClient, plan: Plan) -> Any:
        try:
            name, args, kwargs = next(plan)
            while True:
                answer = await getattr(client, name)(*args, **kwargs)
                name, args, kwargs = plan.send(answer)
        except StopIteration as done:
            return done.value

    def close(self) -> None:
        self.sync.close()

    async def aclose(self) -> None:
        """Closes the async client when called in its loop (another loop cannot close it)."""
        if self._async and self._async[0] is asyncio.get_running_loop():
            await self._async[1].aclose()
        self._async = None


def listing(
    tag: str,
    *,
    current_only: bool = True,
    enough: Callable[[list[Thought]], bool] | None = None,
) -> Generator[Call, Any, list[Thought]]:
    """Every thought with ``tag``, newest first; with ``current_only`` none superseded.
    ``enough``: asked after each page with what was found so far; True stops there."""
    found: list[Thought] = []
    after: str | None = None
    while True:
        page = yield (
            "thoughts",
            (),
            {
                "filter": ThoughtFilterInput(tag=tag),
                "first": PAGE,
                "after": after,
                "current_only": current_only,
            },
        )
        # currentOnly leaves out thoughts superseded outright, not those a refinement
        # superseded (the service's listing; its search leaves both out): drop them here.
        found.extend(t for t in page.nodes if not (current_only and t.superseded))
        if not page.page_info.has_next_page or (enough is not None and enough(found)):
            return found
        after = page.page_info.end_cursor
