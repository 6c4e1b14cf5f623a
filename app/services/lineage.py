"""Tracing a thought's lineage in both directions, with a depth cap (seed 000 Q3)."""

from __future__ import annotations

from app.domain import validation as check
from app.domain.errors import ThoughtNotFoundError
from app.domain.models import Lineage, LineageNode, Thought
from app.store.interface import GraphStore


def _node(thought: Thought, depth: int) -> LineageNode:
    return LineageNode(
        thought_id=thought.id,
        type=thought.type,
        content_preview=thought.preview,
        contributor=thought.agent_name,
        agent_id=thought.agent_id,
        created_at_ms=thought.created_at_ms,
        source_ids=thought.source_ids,
        depth=depth,
    )


class LineageService:
    def __init__(self, store: GraphStore) -> None:
        self._store = store

    async def lineage(
        self, namespace: str, thought_id: str, max_depth: int = check.MAX_LINEAGE_DEPTH
    ) -> Lineage:
        """Sources at negative depths, refinements at positive ones, the thought itself at 0.

        ``truncated`` is true when some lineage lies beyond ``max_depth`` in either direction.
        """
        check.require_namespace(namespace)
        tid = check.require_thought_id("id", thought_id)
        check.require_int_range("maxDepth", max_depth, 1, check.MAX_LINEAGE_DEPTH)
        depths = await self._store.lineage_depths(namespace, tid)
        within = {other: d for other, d in depths.items() if abs(d) <= max_depth}
        truncated = len(within) < len(depths)
        thoughts = await self._store.get_thoughts(namespace, [tid, *within])
        if tid not in thoughts:
            raise ThoughtNotFoundError([tid])
        within[tid] = 0
        chain = sorted(
            (_node(thoughts[other], depth) for other, depth in within.items() if other in thoughts),
            key=lambda node: (node.depth, node.created_at_ms, node.thought_id),
        )
        return Lineage(thought_id=tid, chain=tuple(chain), truncated=truncated)
