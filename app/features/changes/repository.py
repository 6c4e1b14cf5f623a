"""The change log: a subject's events, a namespace's events since a revision, and its
current revision (cypher/changes)."""

from __future__ import annotations

from thoughtgraph.domain.changes import ChangeEvent
from thoughtgraph.store.executor import Executor
from thoughtgraph.store.rows import event_from_row


class ChangeRepository:
    def __init__(self, executor: Executor) -> None:
        self._x = executor

    async def history(self, namespace: str, subject_id: str, limit: int) -> list[ChangeEvent]:
        """Events about or concerning a subject of any kind, oldest first."""
        params = {"namespace": namespace, "subjectId": subject_id, "limit": limit}
        about = await self._x.read("changes.history", params, namespace=namespace)
        concerning = await self._x.read("changes.concerning", params, namespace=namespace)
        events = {row["id"]: event_from_row(row) for row in [*about, *concerning]}
        return sorted(events.values(), key=lambda e: e.revision)[:limit]

    async def since(self, namespace: str, after_revision: int, limit: int) -> list[ChangeEvent]:
        rows = await self._x.read(
            "changes.since",
            {"namespace": namespace, "afterRevision": after_revision, "limit": limit},
            namespace=namespace,
        )
        return [event_from_row(row) for row in rows]

    async def revision(self, namespace: str) -> int:
        rows = await self._x.read("changes.revision", {"namespace": namespace}, namespace=namespace)
        return int(rows[0]["revision"]) if rows else 0
