"""Reads of the retrieval expansion step (app/features/search/expansion.py): the graph
context around search hits (cypher/expansion)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from thoughtgraph.domain.models import Thought, TimeView
from thoughtgraph.store.executor import Executor
from thoughtgraph.store.params import view_params
from thoughtgraph.store.rows import thought_from_row


@dataclass(frozen=True)
class ContextThought:
    """A thought next to an anchor hit."""

    anchor_id: str
    thought: Thought


@dataclass(frozen=True)
class CandidateSimilarity:
    """A candidate's cosine to the query and to each keyword, in the keywords' order."""

    query: float
    words: tuple[float, ...]


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
        return [ContextThought(anchor_id=r["anchorId"], thought=thought_from_row(r)) for r in rows]

    async def similarities(
        self,
        namespace: str,
        ids: Sequence[str],
        query: Sequence[float],
        words: Sequence[Sequence[float]],
    ) -> dict[str, CandidateSimilarity]:
        """The cosines of the thoughts ``ids`` (read through a time view already) to the
        query and to each keyword, by id."""
        if not ids:
            return {}
        rows = await self._x.read(
            "expansion.similarities",
            {
                "namespace": namespace,
                "ids": list(ids),
                "embedding": [float(x) for x in query],
                "wordEmbeddings": [[float(x) for x in w] for w in words],
            },
            namespace=namespace,
        )
        return {
            r["id"]: CandidateSimilarity(
                query=float(r["similarity"] or 0.0),
                words=tuple(float(x or 0.0) for x in r["wordSimilarities"] or ()),
            )
            for r in rows
        }
