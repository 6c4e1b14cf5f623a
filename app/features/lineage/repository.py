"""Lineage: who refines or consolidates what, breadth-first walks, and the edges found by
the meaning of their reasons (cypher/lineage, thought/refiners)."""

from __future__ import annotations

from collections.abc import Sequence

from thoughtgraph.domain.models import LineageEdgeHit, LineageRelation, LineageWalk
from thoughtgraph.domain.scopes import Viewer
from thoughtgraph.store.executor import Executor
from thoughtgraph.store.params import scope_params


class LineageRepository:
    def __init__(self, executor: Executor, *, oversample: int, min_candidates: int) -> None:
        self._x = executor
        self._oversample = oversample
        self._min_candidates = min_candidates

    async def refiners(
        self, namespace: str, ids: Sequence[str], viewer: Viewer
    ) -> dict[str, list[str]]:
        """For each id, the ids of thoughts the viewer sees that refine or consolidate it,
        newest first."""
        if not ids:
            return {}
        rows = await self._x.read(
            "thought.refiners",
            {"namespace": namespace, "ids": list(ids), **scope_params(viewer)},
            namespace=namespace,
        )
        # Revisions increase strictly within a namespace, so the highest is the newest.
        rows.sort(key=lambda row: int(row["revision"] or 0), reverse=True)
        found: dict[str, list[str]] = {}
        for row in rows:
            found.setdefault(row["thoughtId"], []).append(row["refinerId"])
        return found

    async def walk(
        self, namespace: str, thought_id: str, *, max_depth: int, max_nodes: int
    ) -> LineageWalk:
        """Breadth-first signed distances, at most ``max_depth`` steps each way and
        ``max_nodes`` thoughts; ``truncated`` if lineage goes on."""
        depths: dict[str, int] = {}
        down, up = [thought_id], [thought_id]  # frontiers: toward sources, toward refinements
        truncated = False
        for step in range(1, max_depth + 2):
            if not down and not up:
                break
            rows = await self._x.read(
                "lineage.step",
                {"namespace": namespace, "down": down, "up": up, "limit": max_nodes + 1},
                namespace=namespace,
            )
            down, up = [], []
            for row in rows:
                found, direction = row["id"], int(row["direction"])
                if found == thought_id or found in depths:
                    continue  # reached already, at a smaller or equal distance
                if step > max_depth or len(depths) >= max_nodes:
                    truncated = True  # lineage goes on past the depth or the budget
                    continue
                depths[found] = direction * step
                (down if direction < 0 else up).append(found)
        return LineageWalk(depths=depths, truncated=truncated)

    async def search_reasons(
        self, namespace: str, embedding: Sequence[float], k: int
    ) -> list[LineageEdgeHit]:
        """REFINES, CONSOLIDATES and SUPERSEDES edges closest in meaning to ``embedding``."""
        if not await self._x.searchable(namespace):  # never written to: no index yet
            return []
        candidates = max(k * self._oversample, self._min_candidates)
        rows = await self._x.read(
            "lineage.search_reasons",
            {"namespace": namespace, "embedding": list(embedding), "candidates": candidates},
            namespace=namespace,
        )
        hits = [
            LineageEdgeHit(
                from_id=row["fromId"],
                to_id=row["toId"],
                relation=LineageRelation(row["relation"]),
                reason=row["reason"],
                created_at_ms=int(row["createdAt"]),
                similarity=self._x.similarity(float(row["rawScore"])),
            )
            for row in rows
            if row.get("reason") is not None
        ]
        hits.sort(key=lambda hit: hit.similarity, reverse=True)
        return hits[:k]
