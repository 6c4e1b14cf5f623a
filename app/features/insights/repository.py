"""What the insights job reads about people (cypher/insights). It writes through
ThoughtService, like every other thought."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from thoughtgraph.domain.models import Thought, ThoughtKind
from thoughtgraph.store.executor import Executor
from thoughtgraph.store.rows import thought_from_row


class InsightRepository:
    def __init__(self, executor: Executor) -> None:
        self._x = executor

    async def people(self, namespace: str, *, since_ms: int, limit: int) -> dict[str, int]:
        """Person -> the time of their newest activity since ``since_ms`` (thoughts about
        them or private and theirs, insights aside), most recently active first."""
        rows = await self._x.read(
            "insights.people",
            {"namespace": namespace, "since": since_ms, "limit": limit},
            namespace=namespace,
        )
        return {str(r["person"]): int(r["lastActivity"]) for r in rows}

    async def last_written(self, namespace: str, people: Sequence[str]) -> dict[str, int]:
        """Person -> when their newest insight was written; absent: never."""
        if not people:
            return {}
        rows = await self._x.read(
            "insights.last_written",
            {"namespace": namespace, "people": list(people)},
            namespace=namespace,
        )
        return {
            str(r["person"]): int(r["writtenAt"]) for r in rows if r.get("writtenAt") is not None
        }

    async def recent(
        self,
        namespace: str,
        since: Mapping[str, int],
        *,
        kind: ThoughtKind | None,
        limit: int,
    ) -> dict[str, list[Thought]]:
        """Person -> up to ``limit`` of their newest current thoughts written after their
        ``since`` (about them or private and theirs; insights aside), newest first."""
        if not since:
            return {}
        rows = await self._x.read(
            "insights.recent",
            {
                "namespace": namespace,
                "people": [{"person": p, "since": s} for p, s in sorted(since.items())],
                "kind": kind.value if kind is not None else None,
                "limit": limit,
            },
            namespace=namespace,
        )
        found: dict[str, dict[str, Thought]] = {person: {} for person in since}
        for row in rows:
            thought = thought_from_row(row)
            found.setdefault(str(row["person"]), {})[thought.id] = thought
        return {
            person: sorted(thoughts.values(), key=lambda t: (t.created_at_ms, t.id), reverse=True)[
                :limit
            ]
            for person, thoughts in found.items()
        }

    async def conversations(self, namespace: str, since: Mapping[str, int]) -> dict[str, str]:
        """Person -> the narrative (else the summary) of their newest own episode written
        after their ``since``; absent: none."""
        if not since:
            return {}
        rows = await self._x.read(
            "insights.episodes",
            {
                "namespace": namespace,
                "people": [{"person": p, "since": s} for p, s in sorted(since.items())],
            },
            namespace=namespace,
        )
        found: dict[str, str] = {}
        for row in rows:
            text = str(row.get("narrative") or "").strip() or str(row.get("summary") or "").strip()
            if text:
                found[str(row["person"])] = text
        return found
