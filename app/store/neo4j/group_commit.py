"""Group commit of one namespace's writes on Neo4j.

Every write statement appends to its namespace's change log (one node, one lock), so
Neo4j runs one namespace's writes one after the other whatever the service does. One
transaction per write then pays a commit (a log flush and the index updates) per write;
under many agents writing to one namespace the writes queue behind each other's commits.
Here the writes that arrived while the namespace's previous transaction ran go together
in the next one, in arrival order: each statement sees what the ones before it wrote, as
it would one transaction later, and every caller is answered once the transaction that
holds its statement has committed (as durable as before).

A group that fails on a statement (a faulty statement, a unique-constraint conflict, a
timeout) wrote nothing, and each of its statements is run again alone, so each caller
gets its own statement's outcome. A group that fails because the server is unreachable
gives every caller that error: each statement alone would only wait for it again.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from thoughtgraph.domain.errors import StoreError
from thoughtgraph.store.cypher_store import Row

# At most this many statements in one transaction: a group holds the namespace's lock for
# its whole run, and one faulty statement makes all of them run again alone.
MAX_GROUP = 32

Statement = tuple[str, Mapping[str, Any]]
RunMany = Callable[[Sequence[Statement]], Awaitable[list[list[Row]]]]


@dataclass
class _Pending:
    text: str
    params: Mapping[str, Any]
    answer: asyncio.Future[list[Row]]


@dataclass
class GroupCounts:
    """What the groups did: transactions committed and the statements they held."""

    transactions: int = 0
    statements: int = 0


@dataclass
class _Queue:
    waiting: deque[_Pending] = field(default_factory=deque)
    drain: asyncio.Task[None] | None = None


class WriteGroups:
    """Per namespace (None: the catalog), the writes waiting for its next transaction."""

    def __init__(
        self,
        run_many: RunMany,
        *,
        kept_for_each: Callable[[BaseException], bool],
        max_group: int = MAX_GROUP,
    ) -> None:
        """``run_many``: statements in one transaction, each one's rows (a statement alone
        is a group of one). ``kept_for_each(error)``: whether a group's error is every
        statement's (the server is unreachable) rather than one statement's."""
        self._run_many = run_many
        self._kept_for_each = kept_for_each
        self._max_group = max_group
        self._queues: dict[str | None, _Queue] = {}
        self.counts = GroupCounts()

    async def write(self, key: str | None, text: str, params: Mapping[str, Any]) -> list[Row]:
        """Run one write statement in the next transaction of ``key``'s writes."""
        pending = _Pending(text, params, asyncio.get_running_loop().create_future())
        queue = self._queues.setdefault(key, _Queue())
        queue.waiting.append(pending)
        if queue.drain is None or queue.drain.done():
            # A task of its own: a caller that gives up (its request cancelled) must not
            # take the others' transaction down with it.
            queue.drain = asyncio.create_task(self._drain(key, queue), name=f"writes:{key}")
        return await pending.answer

    async def close(self) -> None:
        """Wait until every write already handed in has its answer."""
        drains = [q.drain for q in self._queues.values() if q.drain is not None]
        await asyncio.gather(*drains, return_exceptions=True)

    async def _drain(self, key: str | None, queue: _Queue) -> None:
        try:
            while queue.waiting:
                group: list[_Pending] = []
                while queue.waiting and len(group) < self._max_group:
                    pending = queue.waiting.popleft()
                    if not pending.answer.done():  # its caller gave up before its turn
                        group.append(pending)
                if group:
                    await self._commit(group)
        finally:
            queue.drain = None
            if queue.waiting:  # stopped (cancelled): nothing left may wait forever
                _fail(list(queue.waiting), StoreError("the store closed before this write"))
                queue.waiting.clear()
            if self._queues.get(key) is queue:
                del self._queues[key]

    async def _commit(self, group: list[_Pending]) -> None:
        try:
            found = await self._run_many([(p.text, p.params) for p in group])
        except asyncio.CancelledError:
            _fail(group, StoreError("the store closed during this write"))
            raise
        except Exception as exc:
            if len(group) == 1 or self._kept_for_each(exc):
                _fail(group, exc)
                return
            for pending in group:  # each alone: its own outcome
                if not pending.answer.done():  # its caller gave up while its group ran
                    await self._commit([pending])
            return
        self.counts.transactions += 1
        self.counts.statements += len(group)
        for pending, rows in zip(group, found, strict=True):
            if not pending.answer.done():
                pending.answer.set_result(rows)


def _fail(group: Sequence[_Pending], error: BaseException) -> None:
    for pending in group:
        if not pending.answer.done():
            pending.answer.set_exception(error)
