"""``thoughtgraph export``: every node, relationship and change-log counter of a namespace
(or of all), read in pages, written as JSON Lines (format: features.transfer.service)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

from thoughtgraph.domain import validation as check
from thoughtgraph.features.repositories import Repositories
from thoughtgraph.features.transfer.service import (
    NODE_BY_LABEL,
    NODE_KINDS,
    Header,
    NodeKind,
    dumps,
    split_vector,
)
from thoughtgraph.ports.services import Embeddings
from thoughtgraph.progress import Progress

PAGE_SIZE = 500


@dataclass
class ExportCounts:
    nodes: dict[str, int] = field(default_factory=dict)
    edges: dict[str, int] = field(default_factory=dict)
    namespaces: int = 0

    def summary(self) -> str:
        parts = [f"{n} {label}" for label, n in sorted(self.nodes.items())]
        parts += [f"{n} {rel}" for rel, n in sorted(self.edges.items())]
        return f"{self.namespaces} namespace(s): " + (", ".join(parts) or "empty")


class Exporter:
    def __init__(
        self, repos: Repositories, embedder: Embeddings, *, page_size: int = PAGE_SIZE
    ) -> None:
        self._executor = repos.executor
        self._embedder = embedder  # the one the stored vectors come from (bootstrap checks)
        self._repo = repos.transfer
        self._page_size = page_size

    async def namespaces(self, only: str | None) -> list[str]:
        if only is not None:
            return [check.require_namespace(only)]
        return await self._executor.namespaces()

    async def export(self, out: TextIO, namespaces: Sequence[str], shown: Progress) -> ExportCounts:
        header = Header.now(
            embedder=self._embedder.name,
            dimension=self._embedder.dimension,
            engine=self._executor.engine,
            namespaces=list(namespaces),
        )
        out.write(header.line() + "\n")
        counts = ExportCounts()
        for namespace in namespaces:
            await self._namespace(out, namespace, counts, shown)
            counts.namespaces += 1
        return counts

    async def _namespace(
        self, out: TextIO, namespace: str, counts: ExportCounts, shown: Progress
    ) -> None:
        # Every node first, so that an import meets both ends before a relationship.
        ids: dict[str, list[str]] = {}
        for kind in NODE_KINDS:
            ids[kind.key] = await self._nodes(out, namespace, kind, counts, shown)
        for kind in (k for k in NODE_KINDS if k.outgoing):
            found = ids[kind.key]
            for start in range(0, len(found), self._page_size):
                chunk = found[start : start + self._page_size]
                for row in await self._repo.outgoing(kind.key, namespace, chunk):
                    out.write(dumps(_edge_record(namespace, kind, row)) + "\n")
                    counts.edges[row["type"]] = counts.edges.get(row["type"], 0) + 1
                    shown.advance()
        revision = await self._repo.change_log_revision(namespace)
        if revision is not None:
            out.write(dumps({"record": "changeLog", "namespace": namespace, "revision": revision}))
            out.write("\n")

    async def _nodes(
        self, out: TextIO, namespace: str, kind: NodeKind, counts: ExportCounts, shown: Progress
    ) -> list[str]:
        ids: list[str] = []
        after = ""
        limit = kind.batch(self._page_size)
        while True:
            rows = await self._repo.page(kind.key, namespace, after, limit)
            for row in rows:
                props, vector = split_vector(dict(row["properties"]), kind.vector)
                record: dict[str, Any] = {
                    "record": "node",
                    "namespace": namespace,
                    "label": kind.label,
                    "id": row["id"],
                    "properties": props,
                }
                if vector is not None:
                    record["vector"] = vector
                out.write(dumps(record) + "\n")
                ids.append(str(row["id"]))
                shown.advance()
            counts.nodes[kind.label] = counts.nodes.get(kind.label, 0) + len(rows)
            if len(rows) < limit:
                return ids
            after = str(rows[-1]["id"])


def _edge_record(namespace: str, source: NodeKind, row: dict[str, Any]) -> dict[str, Any]:
    target = next((label for label in row["toLabels"] if label in NODE_BY_LABEL), None)
    vector_name = "reasonEmbedding"
    props, vector = split_vector(dict(row["properties"]), vector_name)
    record: dict[str, Any] = {
        "record": "edge",
        "namespace": namespace,
        "type": row["type"],
        "from": {"label": source.label, "id": row["fromId"]},
        "to": {"label": target, "id": row["toId"]},
        "properties": props,
    }
    if vector is not None:
        record["vector"] = vector
    return record
