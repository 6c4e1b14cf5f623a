"""``thoughtgraph export``: every node, relationship and change-log counter of a namespace
(or of all), read in pages, written as JSON Lines (format: features.transfer.service).

An export reads one vector space from start to end: the store's active slot, pinned for
the whole export (it may outlast a request's pin). A re-embed that switches the store
meanwhile would leave it reading vectors that are retired and then dropped, beside thoughts
written since with none in that slot, so the export then fails and asks to be run again.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import Any, TextIO

from thoughtgraph.domain import validation as check
from thoughtgraph.domain.errors import VectorSpaceChangedError
from thoughtgraph.domain.vector_space import VectorSpace, VectorSpaces
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
from thoughtgraph.ports.vector_slots import SpaceRecords, pinned
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
        self,
        repos: Repositories,
        embedder: Embeddings,
        spaces: SpaceRecords,
        *,
        page_size: int = PAGE_SIZE,
    ) -> None:
        self._executor = repos.executor
        self._embedder = embedder  # the one the stored vectors come from (bootstrap checks)
        self._spaces = spaces
        self._repo = repos.transfer
        self._page_size = page_size

    async def namespaces(self, only: str | None) -> list[str]:
        if only is not None:
            return [check.require_namespace(only)]
        return await self._executor.namespaces()

    async def export(self, out: TextIO, namespaces: Sequence[str], shown: Progress) -> ExportCounts:
        counts = ExportCounts()
        async with aclosing(self.lines(namespaces, counts, shown)) as lines:
            async for line in lines:
                out.write(line)
        return counts

    async def lines(
        self, namespaces: Sequence[str], counts: ExportCounts, shown: Progress
    ) -> AsyncGenerator[str, None]:
        """The export's lines, the header first, each ending in a newline; ``counts`` grows
        as they go. Raises VectorSpaceChangedError after a namespace read while a re-embed
        switched the store."""
        started = await self._spaces.spaces(fresh=True)
        with pinned(started.active.slot):
            yield self._header(started.active, namespaces).line() + "\n"
            for namespace in namespaces:
                async for line in self._namespace(namespace, counts, shown):
                    yield line
                await self._still_in(started)
                counts.namespaces += 1

    def _header(self, space: VectorSpace, namespaces: Sequence[str]) -> Header:
        # A re-embed's space is named by its record (its embedder was checked against it);
        # the space the store was built in by the configured embedder, which the bootstrap
        # accepted under a name that may differ from the record's.
        embedder, dimension = (
            (space.embedder, space.dimension)
            if space.settings is not None
            else (self._embedder.name, self._embedder.dimension)
        )
        return Header.now(
            embedder=embedder,
            dimension=dimension,
            engine=self._executor.engine,
            namespaces=list(namespaces),
        )

    async def _still_in(self, started: VectorSpaces) -> None:
        now = await self._spaces.spaces(fresh=True)
        if (now.active.slot, now.switched_at) != (started.active.slot, started.switched_at):
            raise VectorSpaceChangedError(
                f"a re-embed switched the store from {started.active.embedder} to "
                f"{now.active.embedder} during the export, whose vectors would mix the two; "
                "export again"
            )

    async def _namespace(
        self, namespace: str, counts: ExportCounts, shown: Progress
    ) -> AsyncIterator[str]:
        # Every node first, so that an import meets both ends before a relationship.
        ids: dict[str, list[str]] = {}
        for kind in NODE_KINDS:
            ids[kind.key] = []
            async for line in self._nodes(namespace, kind, counts, ids[kind.key], shown):
                yield line
        for kind in (k for k in NODE_KINDS if k.outgoing):
            found = ids[kind.key]
            for start in range(0, len(found), self._page_size):
                chunk = found[start : start + self._page_size]
                for row in await self._repo.outgoing(kind.key, namespace, chunk):
                    yield dumps(_edge_record(namespace, kind, row)) + "\n"
                    counts.edges[row["type"]] = counts.edges.get(row["type"], 0) + 1
                    shown.advance()
        revision = await self._repo.change_log_revision(namespace)
        if revision is not None:
            record = {"record": "changeLog", "namespace": namespace, "revision": revision}
            yield dumps(record) + "\n"

    async def _nodes(
        self,
        namespace: str,
        kind: NodeKind,
        counts: ExportCounts,
        ids: list[str],
        shown: Progress,
    ) -> AsyncIterator[str]:
        """The namespace's nodes of ``kind``, page by page; their ids appended to ``ids``."""
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
                yield dumps(record) + "\n"
                ids.append(str(row["id"]))
                shown.advance()
            counts.nodes[kind.label] = counts.nodes.get(kind.label, 0) + len(rows)
            if len(rows) < limit:
                return
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
