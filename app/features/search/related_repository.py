"""RELATED_TO edges between similar thoughts, one per unordered pair (cypher/related)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from thoughtgraph.domain.changes import Actor
from thoughtgraph.domain.knowledge import RelatedThought
from thoughtgraph.domain.models import TimeView
from thoughtgraph.store.executor import Executor
from thoughtgraph.store.params import view_params


class RelatedRepository:
    def __init__(self, executor: Executor) -> None:
        self._x = executor

    async def link(
        self,
        namespace: str,
        neighbours: Mapping[str, Sequence[RelatedThought]],
        *,
        actor: Actor,
        at_ms: int,
    ) -> int:
        """Edges from each thought to its neighbours that do not exist yet; returns how
        many were created. One 'linked' event per thought that gained an edge."""
        items = [
            {
                "id": tid,
                "eventId": f"{tid}:linked:{at_ms}",
                "neighbours": [{"id": n.thought_id, "strength": n.strength} for n in found],
            }
            for tid, found in neighbours.items()
            if found
        ]
        if not items:
            return 0
        rows = await self._x.write(
            "related.link",
            {
                "namespace": namespace,
                "items": items,
                "at": at_ms,
                "actorId": actor.id,
                "actorName": actor.name,
            },
            namespace=namespace,
        )
        return int(rows[0]["links"] or 0) if rows else 0

    async def existing(self, namespace: str, ids: Sequence[str]) -> dict[str, set[str]]:
        """Each thought's current RELATED_TO neighbours."""
        if not ids:
            return {}
        rows = await self._x.read(
            "related.existing", {"namespace": namespace, "ids": list(ids)}, namespace=namespace
        )
        return {r["id"]: set(r["neighbours"]) for r in rows}

    async def of(
        self, namespace: str, thought_id: str, limit: int, view: TimeView | None = None
    ) -> list[RelatedThought]:
        rows = await self._x.read(
            "related.of",
            {"namespace": namespace, "id": thought_id, "limit": limit, **view_params(view)},
            namespace=namespace,
        )
        return [RelatedThought(thought_id=r["id"], strength=float(r["strength"])) for r in rows]
