"""Asking for consolidation runs, reading them, and undoing a merge."""

from __future__ import annotations

from collections.abc import Sequence

from thoughtgraph.domain import validation as check
from thoughtgraph.domain.knowledge import ConsolidationRun, new_run_id
from thoughtgraph.features.access import Action, Principal, check_access
from thoughtgraph.features.repositories import Repositories
from thoughtgraph.ports.clock import Clock
from thoughtgraph.ports.jobs import JobQueue


class ConsolidationService:
    def __init__(self, repos: Repositories, queue: JobQueue, clock: Clock) -> None:
        self._repos = repos
        self._queue = queue
        self._clock = clock

    async def request(
        self, namespace: str, *, dry_run: bool, trigger: str, caller: Principal | None = None
    ) -> ConsolidationRun:
        """A queued run: the worker that takes it reports through its node."""
        check_access(caller, Action.WRITE, namespace)
        check.require_namespace(namespace)
        run = await self._repos.runs.create(
            namespace, new_run_id(), dry_run=dry_run, trigger=trigger, at_ms=self._clock.now_ms()
        )
        await self._queue.enqueue_consolidation(namespace, run.id, dry_run)
        return run

    async def request_scan(self, namespace: str, *, caller: Principal | None = None) -> None:
        check_access(caller, Action.WRITE, namespace)
        check.require_namespace(namespace)
        await self._queue.enqueue_namespace_scan(namespace)

    async def runs(
        self, namespace: str, limit: int | None = None, *, caller: Principal | None = None
    ) -> list[ConsolidationRun]:
        check_access(caller, Action.READ, namespace)
        check.require_namespace(namespace)
        limit = check.page_size("first", limit, check.DEFAULT_PAGE_SIZE, check.MAX_PAGE_SIZE)
        return await self._repos.runs.recent(namespace, limit)

    async def merges(
        self,
        namespace: str,
        run_ids: Sequence[str],
        limit: int | None = None,
        *,
        caller: Principal | None = None,
    ) -> dict[str, list[str]]:
        """The ids of the thoughts each run's merges wrote, oldest first (``limit`` per run,
        1 to 100)."""
        check_access(caller, Action.READ, namespace)
        limit = check.page_size("first", limit, check.DEFAULT_PAGE_SIZE, check.MAX_PAGE_SIZE)
        return await self._repos.merges.merged_by_runs(namespace, run_ids, limit)

    async def run(
        self, namespace: str, run_id: str, *, caller: Principal | None = None
    ) -> ConsolidationRun | None:
        check_access(caller, Action.READ, namespace)
        check.require_namespace(namespace)
        rid = check.require_identifier("id", run_id)
        return (await self._repos.runs.get_many(namespace, [rid])).get(rid)
