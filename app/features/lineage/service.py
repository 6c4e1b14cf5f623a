"""Tracing a thought's lineage in both directions, with a depth cap."""

from __future__ import annotations

from thoughtgraph.domain import validation as check
from thoughtgraph.domain.errors import ThoughtNotFoundError
from thoughtgraph.domain.models import Lineage, LineageNode, Thought
from thoughtgraph.features.access import Action, Principal, check_access, seen, viewer_of
from thoughtgraph.features.repositories import Repositories


def _node(thought: Thought, depth: int, hidden: set[str]) -> LineageNode:
    return LineageNode(
        thought_id=thought.id,
        type=thought.type,
        content_preview=thought.preview,
        contributor=thought.agent_name,
        agent_id=thought.agent_id,
        created_at_ms=thought.created_at_ms,
        source_ids=tuple(sid for sid in thought.source_ids if sid not in hidden),
        depth=depth,
    )


class LineageService:
    def __init__(self, repos: Repositories) -> None:
        self._repos = repos

    async def lineage(
        self,
        namespace: str,
        thought_id: str,
        max_depth: int = check.MAX_LINEAGE_DEPTH,
        *,
        caller: Principal | None = None,
    ) -> Lineage:
        """Sources at negative depths, refinements at positive ones, the thought itself at 0.

        ``truncated`` is true when some lineage lies beyond ``max_depth`` in either direction
        or beyond the ``MAX_LINEAGE_NODES`` nearest thoughts (a walk visits thoughts, never
        paths, so a wide DAG of consolidations costs what it holds).
        """
        check_access(caller, Action.READ, namespace)
        check.require_namespace(namespace)
        tid = check.require_thought_id("id", thought_id)
        check.require_int_range("maxDepth", max_depth, 1, check.MAX_LINEAGE_DEPTH)
        walk = await self._repos.lineage.walk(
            namespace, tid, max_depth=max_depth, max_nodes=check.MAX_LINEAGE_NODES
        )
        within = dict(walk.depths)
        truncated = walk.truncated
        stored = await self._repos.thoughts.get_many(namespace, [tid, *within])
        # Another user's private thoughts are left out of the chain, and out of the
        # source ids of the thoughts it shows.
        thoughts = seen(stored, viewer_of(caller))
        hidden = set(stored) - set(thoughts)
        if tid not in thoughts:
            raise ThoughtNotFoundError([tid])
        within[tid] = 0
        chain = sorted(
            (
                _node(thoughts[other], depth, hidden)
                for other, depth in within.items()
                if other in thoughts
            ),
            key=lambda node: (node.depth, node.created_at_ms, node.thought_id),
        )
        return Lineage(thought_id=tid, chain=tuple(chain), truncated=truncated)
