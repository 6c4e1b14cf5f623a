"""The statements of re-embedding (cypher/reembedding/): what lacks a vector in the pinned
space, those vectors written, and a retired space's vectors cleared. Every statement runs
in the slot the caller pinned (app/ports/vector_slots.py)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from thoughtgraph.store.executor import Executor, vector_list

# What a re-embed fills and clears, in order: topics come after thoughts (a topic's vector
# is its members' mean direction).
KINDS = ("thoughts", "reasons", "topics", "episodes")


@dataclass(frozen=True)
class Missing:
    """One record without a vector in the pinned space, and what its vector is made of."""

    key: dict[str, str]  # the row the write statement matches it by
    text: str
    member_vectors: tuple[tuple[float, ...], ...] = ()  # topics: their members' vectors


@dataclass(frozen=True)
class Page:
    items: list[Missing]
    cursor: str | None  # the last id the page covered; None when the kind is exhausted


class ReembeddingRepository:
    def __init__(self, executor: Executor) -> None:
        self._executor = executor

    async def namespaces(self) -> list[str]:
        return await self._executor.namespaces()

    async def missing(self, namespace: str, kind: str, after: str, limit: int) -> Page:
        """The next page of ``kind`` after ``after`` (id order) lacking a vector."""
        params = {"namespace": namespace, "after": after, "limit": limit}
        rows = await self._executor.read(f"reembedding.{kind}_missing", params, namespace=namespace)
        if kind == "reasons":
            sources = [str(row["sourceId"]) for row in rows]
            items = [
                Missing(
                    {
                        "sourceId": str(r["sourceId"]),
                        "type": str(r["type"]),
                        "targetId": str(r["targetId"]),
                    },
                    str(r["text"]),
                )
                for r in rows
                if r.get("type") is not None
            ]
            # Every thought of the page comes back: the cursor moves past all of them.
            return Page(items, max(sources) if len(set(sources)) >= limit else None)
        items = [
            Missing(
                {"id": str(row["id"])},
                str(row.get("text") or row.get("name") or ""),
                tuple(tuple(vector_list(v)) for v in row.get("memberVectors") or ()),
            )
            for row in rows
        ]
        return Page(items, items[-1].key["id"] if len(items) >= limit else None)

    async def write(
        self,
        namespace: str,
        kind: str,
        items: Sequence[Missing],
        vectors: Sequence[Sequence[float]],
    ) -> int:
        """Each item's vector in the pinned space; returns how many were written."""
        if not items:
            return 0
        rows = [
            {**item.key, "text": item.text, "vector": [float(x) for x in vector]}
            for item, vector in zip(items, vectors, strict=True)
        ]
        found = await self._executor.write(
            f"reembedding.{kind}_write", {"namespace": namespace, "rows": rows}, namespace=namespace
        )
        return int(found[0]["written"]) if found else 0

    async def clear(self, namespace: str, kind: str, limit: int) -> int:
        """A batch of ``kind`` loses its vectors of the pinned space; how many did."""
        found = await self._executor.write(
            f"reembedding.clear_{kind}",
            {"namespace": namespace, "limit": limit},
            namespace=namespace,
        )
        return int(found[0]["cleared"]) if found else 0
