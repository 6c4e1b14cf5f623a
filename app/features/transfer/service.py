"""Export and import: the JSON Lines format both sides share.

A file starts with a header line (format, version, the embedder and dimension its vectors
come from, the engine, when it was written), then for each namespace every node, then
every relationship, then its change-log counter. Each record carries the properties as
the store holds them, with the one vector property of its kind set apart as ``vector``
(an import keeps it when its embedder is the same, and embeds the text again when not).
Nodes are written in id order and relationships in (from, type, to) order, so exporting
the same graph twice gives the same lines.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import numpy as np

from thoughtgraph.domain.errors import InvalidInputError
from thoughtgraph.ports.vector_slots import SLOTS, current_slot, spaced

FORMAT = "thoughtgraph-export"
VERSION = 1


@dataclass(frozen=True)
class NodeKind:
    label: str
    key: str  # the statement suffix: transfer.page_<key>, out_<key>, merge_<key>
    vector: str | None = None  # the property holding its embedding
    text: str | None = None  # what that embedding is made from, when it can be made again
    outgoing: bool = False  # relationships leave it (transfer.out_<key>)
    # At most this many a page (export) and a batch (import), below the usual size: for
    # nodes that carry large data.
    max_batch: int | None = None

    def batch(self, usual: int) -> int:
        """How many of these nodes go in one page or batch of ``usual`` size."""
        return min(usual, self.max_batch) if self.max_batch else usual


NODE_KINDS = (
    NodeKind("Thought", "thoughts", vector="embedding", text="content", outgoing=True),
    # A topic's embedding is the mean of its members' (features.topics): made again
    # from them after an import that re-embeds.
    NodeKind("Topic", "topics", vector="embedding"),
    NodeKind("Contradiction", "contradictions", outgoing=True),
    NodeKind("Episode", "episodes", vector="embedding", text="summary"),
    NodeKind("ConsolidationRun", "runs"),
    NodeKind("PairCheck", "pair_checks"),
    # Pending and decided merges of users' private near-duplicates (consolidation
    # proposals) and changes to a person field held for consent: their events are in the
    # change log, so their subjects go with it.
    NodeKind("MergeProposal", "proposals", outgoing=True),
    NodeKind("ConsentRequest", "consent_requests"),
    # Agents' saved thread state (features.checkpoints), every property as stored (user,
    # thread, parent, revision, data): a user's thread reads back with the same history,
    # and its events keep their subject. Data reach 480 KB each (the default limit): 50
    # a page or batch.
    NodeKind("Checkpoint", "checkpoints", max_batch=50),
    NodeKind("ChangeEvent", "events", outgoing=True),
)
NODE_BY_LABEL = {kind.label: kind for kind in NODE_KINDS}


@dataclass(frozen=True)
class EdgeKind:
    type: str
    source: str
    target: str
    statement: str  # transfer.link_<statement>
    vector: str | None = None
    text: str | None = None


def _reasoned(rel_type: str) -> EdgeKind:
    return EdgeKind(
        rel_type, "Thought", "Thought", rel_type.lower(), vector="reasonEmbedding", text="reason"
    )


EDGE_KINDS = (
    _reasoned("REFINES"),
    _reasoned("CONSOLIDATES"),
    _reasoned("SUPERSEDES"),
    EdgeKind("RELATED_TO", "Thought", "Thought", "related_to"),
    EdgeKind("BELONGS_TO", "Thought", "Topic", "belongs_to"),
    EdgeKind("PART_OF", "Thought", "Episode", "part_of"),
    EdgeKind("INVOLVES", "Contradiction", "Thought", "involves"),
    EdgeKind("PROPOSES", "MergeProposal", "Thought", "proposes"),
    EdgeKind("CONCERNS", "ChangeEvent", "Thought", "concerns_thought"),
    EdgeKind("CONCERNS", "ChangeEvent", "Topic", "concerns_topic"),
    EdgeKind("CONCERNS", "ChangeEvent", "Contradiction", "concerns_contradiction"),
    EdgeKind("CONCERNS", "ChangeEvent", "Episode", "concerns_episode"),
    EdgeKind("CONCERNS", "ChangeEvent", "ConsolidationRun", "concerns_run"),
    EdgeKind("CONCERNS", "ChangeEvent", "MergeProposal", "concerns_proposal"),
    EdgeKind("CONCERNS", "ChangeEvent", "ConsentRequest", "concerns_consent_request"),
    EdgeKind("CONCERNS", "ChangeEvent", "Checkpoint", "concerns_checkpoint"),
)
EDGE_BY_ENDS = {(e.type, e.source, e.target): e for e in EDGE_KINDS}


@dataclass(frozen=True)
class Header:
    embedder: str
    dimension: int
    engine: str
    exported_at: str
    namespaces: tuple[str, ...]

    @classmethod
    def now(cls, *, embedder: str, dimension: int, engine: str, namespaces: list[str]) -> Header:
        stamp = datetime.now(UTC).isoformat(timespec="seconds")
        return cls(embedder, dimension, engine, stamp, tuple(namespaces))

    def line(self) -> str:
        return dumps(
            {
                "format": FORMAT,
                "version": VERSION,
                "embedder": self.embedder,
                "dimension": self.dimension,
                "engine": self.engine,
                "exportedAt": self.exported_at,
                "namespaces": list(self.namespaces),
            }
        )

    @classmethod
    def parse(cls, line: str) -> Header:
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InvalidInputError("the first line is not a JSON header", field="file") from exc
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise InvalidInputError(f"not a {FORMAT} file (no header line)", field="file")
        if data.get("version") != VERSION:
            raise InvalidInputError(
                f"format version {data.get('version')!r}; this release reads {VERSION}",
                field="file",
            )
        return cls(
            embedder=str(data["embedder"]),
            dimension=int(data["dimension"]),
            engine=str(data["engine"]),
            exported_at=str(data["exportedAt"]),
            namespaces=tuple(str(ns) for ns in data.get("namespaces", [])),
        )


def dumps(record: dict[str, Any]) -> str:
    """One line, keys sorted: the same record always gives the same text."""
    return json.dumps(record, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def split_vector(properties: dict[str, Any], name: str | None) -> tuple[dict[str, Any], Any]:
    """The properties without the vector ones (of either vector slot), and the vector of
    the request's slot (or None) at float32 precision: FalkorDB keeps vectors as float32
    and Neo4j as float64 (a merge's mean vector has float64 digits), so an export reads
    the same from either engine."""
    names = {spaced(name, slot) for slot in SLOTS} if name else set()
    props = {k: _portable(v) for k, v in properties.items() if k not in names}
    raw = properties.get(spaced(name, current_slot())) if name else None
    if raw is None:
        return props, None
    return props, np.asarray([float(x) for x in raw], dtype=np.float32).tolist()


def _portable(value: Any) -> Any:
    """A float at the 15 significant digits FalkorDB answers with (Neo4j answers with 17):
    the same stored value exports the same text from either engine."""
    if isinstance(value, float):
        return float(f"{value:.15g}")
    if isinstance(value, list):
        return [_portable(item) for item in value]
    return value
