"""Moving many records at once (cypher/transfer): batch ingest of originals, and the pages
and batches of export and import."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from thoughtgraph.domain.models import ThoughtRecord
from thoughtgraph.store.executor import Executor, Row


def ingest_row(record: ThoughtRecord) -> dict[str, Any]:
    """One original of a batch, as transfer/ingest_batch reads it."""
    t = record.thought
    return {
        "id": t.id,
        "content": t.content,
        "agentId": t.agent_id,
        "agentName": t.agent_name,
        "context": t.context,
        "sessionId": t.session_id,
        "tags": list(t.tags),
        "pheromoneWeight": t.pheromone_weight,
        "createdAt": t.created_at_ms,
        "kind": t.kind.value,
        "salience": t.salience,
        "importance": t.importance,
        "pinned": t.pinned,
        "category": t.category,
        "validFrom": t.valid_from_ms,
        "validTo": t.valid_to_ms,
        "scope": t.scope.value,
        "ownerId": t.owner_id,
        "about": t.about,
        "embedding": list(record.embedding),
        "actorKeyId": record.actor_key_id,
    }


class TransferRepository:
    def __init__(self, executor: Executor) -> None:
        self._x = executor

    async def ingest_originals(
        self, namespace: str, records: Sequence[ThoughtRecord]
    ) -> dict[str, int]:
        """Write the originals not stored yet, each with its event; their revisions by id
        (an id already stored is left out)."""
        if not records:
            return {}
        rows = await self._x.write(
            "transfer.ingest_batch",
            {"namespace": namespace, "rows": [ingest_row(r) for r in records]},
            namespace=namespace,
        )
        return {str(r["id"]): int(r["revision"]) for r in rows}

    # --- export: pages of each kind, and the relationships leaving them ------------------
    async def page(self, kind: str, namespace: str, after_id: str, limit: int) -> list[Row]:
        """Up to ``limit`` nodes of ``kind`` (a statement suffix: thoughts, topics, ...)
        after ``after_id``, in id order, with every stored property."""
        return await self._x.read(
            f"transfer.page_{kind}",
            {"namespace": namespace, "afterId": after_id, "limit": limit},
            namespace=namespace,
        )

    async def outgoing(self, kind: str, namespace: str, ids: Sequence[str]) -> list[Row]:
        """The relationships leaving the given nodes of ``kind``."""
        if not ids:
            return []
        return await self._x.read(
            f"transfer.out_{kind}", {"namespace": namespace, "ids": list(ids)}, namespace=namespace
        )

    async def change_log_revision(self, namespace: str) -> int | None:
        rows = await self._x.read(
            "transfer.change_log", {"namespace": namespace}, namespace=namespace
        )
        return int(rows[0]["revision"]) if rows and rows[0]["revision"] is not None else None

    # --- import: batches per kind, MERGE on the exported ids --------------------------
    async def merge_nodes(self, kind: str, namespace: str, rows: Sequence[Row]) -> None:
        """Rows of ``{id, properties, vector}``; what exists already is left as it is."""
        if rows:
            await self._x.write(
                f"transfer.merge_{kind}",
                {"namespace": namespace, "rows": list(rows)},
                namespace=namespace,
            )

    async def link(self, statement: str, namespace: str, rows: Sequence[Row]) -> None:
        """Rows of ``{fromId, toId, properties, vector}`` for one relationship type."""
        if rows:
            await self._x.write(
                f"transfer.link_{statement}",
                {"namespace": namespace, "rows": list(rows)},
                namespace=namespace,
            )

    async def restore_change_log(self, namespace: str, revision: int) -> None:
        await self._x.write(
            "transfer.restore_change_log",
            {"namespace": namespace, "rows": [{"revision": revision}]},
            namespace=namespace,
        )
