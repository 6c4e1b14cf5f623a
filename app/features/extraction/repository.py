"""The per-user daily allowance of extraction calls (cypher/extraction)."""

from __future__ import annotations

from thoughtgraph.domain.knowledge import stable_id
from thoughtgraph.store.executor import Executor


class ExtractionRepository:
    def __init__(self, executor: Executor) -> None:
        self._x = executor

    async def spend(self, namespace: str, user: str, day: int, cap: int) -> bool:
        """Whether the user had a call left today (and now has one fewer)."""
        rows = await self._x.write(
            "extraction.spend_quota",
            {
                "namespace": namespace,
                "id": stable_id("quota", namespace, user, str(day)),
                "user": user,
                "day": day,
                "cap": cap,
            },
            namespace=namespace,
        )
        return bool(rows)
