"""Reads of the retrieval expansion step (app/features/search/expansion.py): the graph
context around search hits (cypher/expansion)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from thoughtgraph.domain.models import Thought, TimeView
from thoughtgraph.store.executor import Executor, vector_list
from thoughtgraph.store.params import view_params
from thoughtgraph.store.rows import thought_from_row


@dataclass(frozen=True)
class ContextThought:
    """A thought next to an anchor hit, with its embedding."""

    anchor_id: str
    thought: Thought
    embedding: list[float]


class ExpansionRepository:
    def __init__(self, executor: Executor) -> None:
        self._x = executor

    async def session_context(
        self,
        namespace: str,
        anchors: Sequence[Thought],
        *,
        window_ms: int,
        per_anchor: int,
        view: TimeView | None = None,
    ) -> list[ContextThought]:
        """For each anchor with a session, the ``per_anchor`` thoughts of its session
        written within ``window_ms`` either side of it and nearest to it in write order
        (revision): a batch's turns share their creation time, not their order."""
        items = [
            {
                "id": t.id,
                "sessionId": t.session_id,
                "revision": t.revision,
                "earliest": t.created_at_ms - window_ms,
                "latest": t.created_at_ms + window_ms,
            }
            for t in anchors
            if t.session_id is not None
        ]
        if not items or per_anchor < 1:
            return []
        rows = await self._x.read(
            "expansion.session_context",
            {
                "namespace": namespace,
                "anchors": items,
                "perAnchor": per_anchor,
                **view_params(view),
            },
            namespace=namespace,
        )
        return [
            ContextThought(
                anchor_id=r["anchorId"],
                thought=thought_from_row(r),
                embedding=vector_list(r["embedding"]),
            )
            for r in rows
        ]
