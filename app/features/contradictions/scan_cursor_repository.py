"""The scan cursor: the change-log revision up to which every written thought has been
scanned for contradictions and related neighbours (cypher/scan)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from thoughtgraph.store.executor import Executor


@dataclass(frozen=True)
class ScanPosition:
    head: int  # the change log's latest revision
    scanned: int  # every thought written at or before it has been scanned


@dataclass(frozen=True)
class WrittenThought:
    revision: int
    thought_id: str


class ScanCursorRepository:
    def __init__(self, executor: Executor) -> None:
        self._x = executor

    async def position(self, namespace: str) -> ScanPosition:
        rows = await self._x.read("scan.cursor", {"namespace": namespace}, namespace=namespace)
        row = rows[0] if rows else {"head": 0, "scanned": 0}
        return ScanPosition(head=int(row["head"]), scanned=int(row["scanned"]))

    async def written_after(
        self,
        namespace: str,
        position: ScanPosition,
        kinds: Sequence[str],
        *,
        since_ms: int,
        limit: int,
    ) -> list[WrittenThought]:
        """Thoughts written after the cursor, up to the head, oldest first."""
        rows = await self._x.read(
            "scan.written",
            {
                "namespace": namespace,
                "afterRevision": position.scanned,
                "head": position.head,
                "kinds": list(kinds),
                "since": since_ms,
                "limit": limit,
            },
            namespace=namespace,
        )
        return [WrittenThought(int(r["revision"]), str(r["thoughtId"])) for r in rows]

    async def advance(self, namespace: str, revision: int) -> None:
        await self._x.write(
            "scan.advance", {"namespace": namespace, "revision": revision}, namespace=namespace
        )
