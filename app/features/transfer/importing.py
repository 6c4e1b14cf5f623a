"""``thoughtgraph import FILE``: restore an export into either engine, in batches per kind.

Every write MERGEs on the exported ids and sets properties only on creation, so importing
the same file twice changes nothing, and an import stopped half-way is finished by running
it again. Vectors are kept when the file's embedder (name and dimension) is the target's;
otherwise the texts are embedded again with the target's: a thought's content, a lineage
edge's reason, an episode's summary, and a topic's embedding is made again as the mean of
its members' (as thoughtgraph.features.topics.service keeps it), or from its name when it has none.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from thoughtgraph.domain import validation as check
from thoughtgraph.domain.errors import InvalidInputError
from thoughtgraph.domain.models import ThoughtKind
from thoughtgraph.domain.scopes import Scope
from thoughtgraph.domain.vector_space import mean_direction
from thoughtgraph.features.consent.gate import FieldChanges
from thoughtgraph.features.repositories import Repositories
from thoughtgraph.features.thoughts.inputs import ThoughtInput, ValidatedInput, validate_input
from thoughtgraph.features.transfer.service import (
    EDGE_BY_ENDS,
    NODE_BY_LABEL,
    EdgeKind,
    Header,
    NodeKind,
)
from thoughtgraph.ports.services import Embeddings
from thoughtgraph.progress import Progress

BATCH_SIZE = 500
Row = dict[str, Any]


@dataclass
class ImportCounts:
    nodes: int = 0
    edges: int = 0
    skipped: int = 0  # relationships of a type this release does not know
    held: int = 0  # thoughts that would change a field about a person: proposed instead
    reembedded: bool = False
    namespaces: set[str] = field(default_factory=set)

    def summary(self) -> str:
        vectors = "vectors embedded again" if self.reembedded else "vectors kept"
        skipped = f", {self.skipped} unknown relationship(s) skipped" if self.skipped else ""
        held = f", {self.held} change(s) to person fields held for consent" if self.held else ""
        return (
            f"{len(self.namespaces)} namespace(s): {self.nodes} node(s), {self.edges}"
            f" relationship(s) ({vectors}){skipped}{held}"
        )


class Importer:
    def __init__(
        self,
        repos: Repositories,
        embedder: Embeddings,
        *,
        batch_size: int = BATCH_SIZE,
        fields: FieldChanges,
    ) -> None:
        self._repo = repos.transfer
        self._fields = fields  # a person field changes only by consent
        self._held = 0
        self._embedder = embedder
        self._batch_size = batch_size
        self._nodes: dict[tuple[str, NodeKind], list[Row]] = {}
        self._edges: dict[tuple[str, EdgeKind], list[Row]] = {}
        self._reembed = False
        # Only when re-embedding: what a topic's new embedding is made from.
        self._thought_vectors: dict[str, np.ndarray] = {}
        self._members: dict[tuple[str, str], list[str]] = {}
        self._topic_names: dict[tuple[str, str], str] = {}

    async def restore(
        self, lines: Iterable[str], *, only: str | None, shown: Progress
    ) -> ImportCounts:
        numbered = enumerate(lines, start=1)
        first = next(numbered, None)
        if first is None:
            raise InvalidInputError("the file is empty", field="file")
        header = Header.parse(first[1])
        self._reembed = (header.embedder, header.dimension) != (
            self._embedder.name,
            self._embedder.dimension,
        )
        counts = ImportCounts(reembedded=self._reembed)
        for number, line in numbered:
            if line.strip():
                await self._record(_parse(line, number), only, counts)
                shown.advance()
        await self._flush_all()
        if self._reembed:
            await self._topic_embeddings()
        counts.held = self._held
        return counts

    async def _record(self, record: Row, only: str | None, counts: ImportCounts) -> None:
        namespace = check.require_namespace(str(record.get("namespace", "")))
        if only is not None and namespace != only:
            return
        counts.namespaces.add(namespace)
        kind = record.get("record")
        if kind == "node":
            await self._node(namespace, record)
            counts.nodes += 1
        elif kind == "edge":
            counts.edges += await self._edge(namespace, record)
            counts.skipped += 0 if self._known_edge(record) else 1
        elif kind == "changeLog":
            await self._flush_all()  # the counter comes last: after every event it counts
            await self._repo.restore_change_log(namespace, int(record["revision"]))
        else:
            raise InvalidInputError(f"unknown record kind {kind!r}", field="file")

    async def _node(self, namespace: str, record: Row) -> None:
        kind = NODE_BY_LABEL.get(str(record.get("label")))
        if kind is None:
            raise InvalidInputError(f"unknown node label {record.get('label')!r}", field="file")
        row = {"id": str(record["id"]), "properties": record["properties"]}
        row["vector"] = record.get("vector")
        if self._reembed and kind.label == "Topic":
            self._topic_names[(namespace, row["id"])] = str(row["properties"].get("name") or "")
        buffer = self._nodes.setdefault((namespace, kind), [])
        buffer.append(row)
        if len(buffer) >= kind.batch(self._batch_size):
            await self._flush_nodes(namespace, kind)

    def _known_edge(self, record: Row) -> bool:
        ends = (record.get("type"), record["from"].get("label"), record["to"].get("label"))
        return ends in EDGE_BY_ENDS

    async def _edge(self, namespace: str, record: Row) -> int:
        ends = (record.get("type"), record["from"].get("label"), record["to"].get("label"))
        kind = EDGE_BY_ENDS.get(ends)  # type: ignore[arg-type]
        if kind is None:
            return 0
        # Both ends must be stored before a relationship between them.
        for namespace_kind in [key for key in self._nodes if key[0] == namespace]:
            await self._flush_nodes(*namespace_kind)
        row = {
            "fromId": str(record["from"]["id"]),
            "toId": str(record["to"]["id"]),
            "properties": record["properties"],
            "vector": record.get("vector"),
        }
        if self._reembed and kind.type == "BELONGS_TO":
            self._members.setdefault((namespace, row["toId"]), []).append(row["fromId"])
        buffer = self._edges.setdefault((namespace, kind), [])
        buffer.append(row)
        if len(buffer) >= self._batch_size:
            await self._flush_edges(namespace, kind)
        return 1

    async def _flush_all(self) -> None:
        for key in list(self._nodes):
            await self._flush_nodes(*key)
        for edge_key in list(self._edges):
            await self._flush_edges(*edge_key)

    async def _flush_nodes(self, namespace: str, kind: NodeKind) -> None:
        rows = self._nodes.pop((namespace, kind), [])
        if not rows:
            return
        if kind.label == "Thought":
            rows = await self._without_proposed(namespace, rows)
        if self._reembed and kind.vector is not None:
            await self._embed_nodes(kind, rows)
        await self._repo.merge_nodes(kind.key, namespace, rows)

    async def _without_proposed(self, namespace: str, rows: list[Row]) -> list[Row]:
        """The rows to import: a current thought that would change a field about a person
        is not imported, the change is proposed to the person instead
        (thoughtgraph.domain.consent); the batch's fields are read in one statement."""
        fields = [(row, self._person_field(namespace, row)) for row in rows]
        values = [value for _, value in fields if value is not None]
        held = iter(await self._fields.held_many(values, user=None))
        kept = []
        for row, value in fields:
            if value is not None and next(held) is not None:
                self._held += 1
            else:
                kept.append(row)
        return kept

    def _person_field(self, namespace: str, row: Row) -> ValidatedInput | None:
        """A current thought holding a person field, as a contribution of it."""
        p = row["properties"]
        if self._fields.policy.field_of(p.get("category"), p.get("about")) is None:
            return None
        if p.get("supersededAt") is not None or p.get("state", "active") != "active":
            return None
        data = ThoughtInput(
            content=str(p.get("content") or ""),
            agent_id=str(p.get("agentId") or "import"),
            agent_name=str(p.get("agentName") or "import"),
            namespace=namespace,
            context=p.get("context"),
            session_id=p.get("sessionId"),
            tags=tuple(p.get("tags") or ()),
            kind=ThoughtKind(p.get("kind") or ThoughtKind.FACT),
            importance=int(p.get("importance") or 3),
            category=p.get("category"),
            scope=Scope(p.get("scope") or Scope.SHARED),
            owner_id=p.get("ownerId"),
            about=p.get("about"),
        )
        return validate_input(data, None)

    async def _flush_edges(self, namespace: str, kind: EdgeKind) -> None:
        rows = self._edges.pop((namespace, kind), [])
        if not rows:
            return
        if self._reembed and kind.text is not None:
            texts = [row["properties"].get(kind.text) for row in rows]
            await self._embed_into(rows, texts, query=False)
        await self._repo.link(kind.statement, namespace, rows)

    async def _embed_nodes(self, kind: NodeKind, rows: list[Row]) -> None:
        if kind.text is None:  # a topic: made from its members once they are all known
            for row in rows:
                row["vector"] = None
            return
        texts = [row["properties"].get(kind.text) for row in rows]
        # An episode's embedding is its summary embedded as a query (features.episodes).
        await self._embed_into(rows, texts, query=kind.label == "Episode")
        if kind.label == "Thought":
            for row in rows:
                self._thought_vectors[row["id"]] = np.asarray(row["vector"], dtype=np.float32)

    async def _embed_into(self, rows: list[Row], texts: list[Any], *, query: bool) -> None:
        present = [i for i, text in enumerate(texts) if isinstance(text, str) and text]
        if query:
            vectors = [await self._embedder.async_embed_query(texts[i]) for i in present]
        else:
            vectors = await self._embedder.async_embed_documents([texts[i] for i in present])
        for row in rows:
            row["vector"] = None
        for i, vector in zip(present, vectors, strict=True):
            rows[i]["vector"] = list(vector)

    async def _topic_embeddings(self) -> None:
        """Each topic's embedding made again: the mean direction of its members' new ones."""
        by_namespace: dict[str, list[Row]] = {}
        for (namespace, topic_id), name in self._topic_names.items():
            members = [
                self._thought_vectors[tid]
                for tid in self._members.get((namespace, topic_id), [])
                if tid in self._thought_vectors
            ]
            if members:
                vector = mean_direction(members)
            else:
                vector = await self._embedder.async_embed_query(name or topic_id)
            by_namespace.setdefault(namespace, []).append(
                {"id": topic_id, "properties": {}, "vector": list(vector)}
            )
        for namespace, rows in by_namespace.items():
            for start in range(0, len(rows), self._batch_size):
                chunk = rows[start : start + self._batch_size]
                await self._repo.merge_nodes("topics", namespace, chunk)


def _parse(line: str, number: int) -> Row:
    try:
        record = json.loads(line)
    except json.JSONDecodeError as exc:
        raise InvalidInputError(f"line {number} is not JSON: {exc.msg}", field="file") from exc
    if not isinstance(record, dict):
        raise InvalidInputError(f"line {number} is not a JSON object", field="file")
    return record
