"""Consolidation runs: the operational log of maintenance (cypher/run)."""

from __future__ import annotations

from collections.abc import Sequence

from thoughtgraph.domain.knowledge import ConsolidationRun, RunCounts, RunStatus, RunUsage
from thoughtgraph.store.executor import Executor
from thoughtgraph.store.model_rows import run_from_row


class RunRepository:
    def __init__(self, executor: Executor) -> None:
        self._x = executor

    async def create(
        self, namespace: str, run_id: str, *, dry_run: bool, trigger: str, at_ms: int
    ) -> ConsolidationRun:
        rows = await self._x.write(
            "run.create",
            {
                "namespace": namespace,
                "id": run_id,
                "dryRun": dry_run,
                "trigger": trigger,
                "at": at_ms,
            },
            namespace=namespace,
        )
        return run_from_row(rows[0])

    async def start(self, namespace: str, run_id: str, at_ms: int) -> ConsolidationRun | None:
        """None when the run has finished already (a redelivered task)."""
        rows = await self._x.write(
            "run.start", {"namespace": namespace, "id": run_id, "at": at_ms}, namespace=namespace
        )
        return run_from_row(rows[0]) if rows else None

    async def finish(
        self,
        namespace: str,
        run_id: str,
        *,
        status: RunStatus,
        counts: RunCounts,
        usage: RunUsage,
        error: str | None,
        at_ms: int,
    ) -> ConsolidationRun:
        rows = await self._x.write(
            "run.finish",
            {
                "namespace": namespace,
                "id": run_id,
                "status": status.value,
                "counts": counts.model_dump_json(),
                "usage": usage.model_dump_json(),
                "error": error,
                "at": at_ms,
            },
            namespace=namespace,
        )
        return run_from_row(rows[0])

    async def recent(self, namespace: str, limit: int) -> list[ConsolidationRun]:
        rows = await self._x.read(
            "run.list", {"namespace": namespace, "limit": limit}, namespace=namespace
        )
        return [run_from_row(r) for r in rows]

    async def get_many(self, namespace: str, ids: Sequence[str]) -> dict[str, ConsolidationRun]:
        if not ids:
            return {}
        rows = await self._x.read(
            "run.get_many", {"namespace": namespace, "ids": list(ids)}, namespace=namespace
        )
        return {r["id"]: run_from_row(r) for r in rows}
