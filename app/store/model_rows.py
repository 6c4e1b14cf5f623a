"""Domain models of the maintained node types from their scalar rows."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from thoughtgraph.domain.knowledge import (
    Artifact,
    ConsolidationRun,
    Contradiction,
    ContradictionStatus,
    Episode,
    Resolution,
    RunCounts,
    RunStatus,
    RunUsage,
    Topic,
)
from thoughtgraph.domain.scopes import DEFAULT_SCOPE, Scope
from thoughtgraph.store.rows import optional_int


def topic_from_row(row: Mapping[str, Any]) -> Topic:
    return Topic(
        id=row["id"],
        namespace=row["namespace"],
        name=row["name"],
        summary=row.get("summary"),
        thought_count=int(row.get("thoughtCount") or 0),
        unsummarised_count=int(row.get("unsummarisedCount") or 0),
        created_at_ms=int(row["createdAt"]),
        updated_at_ms=int(row["updatedAt"]),
        summarised_at_ms=optional_int(row.get("summarisedAt")),
    )


def contradiction_from_row(row: Mapping[str, Any]) -> Contradiction:
    resolution = row.get("resolution")
    return Contradiction(
        id=row["id"],
        namespace=row["namespace"],
        thought_a_id=row["thoughtAId"],
        thought_b_id=row["thoughtBId"],
        status=ContradictionStatus(row["status"]),
        relation=row.get("relation") or "conflict",
        detected_at_ms=int(row["detectedAt"]),
        detector=row["detector"],
        confidence=float(row["confidence"]),
        explanation=row.get("explanation") or "",
        resolution=Resolution(resolution) if resolution else None,
        note=row.get("note"),
        resolved_by=row.get("resolvedBy"),
        resolved_at_ms=optional_int(row.get("resolvedAt")),
        merged_thought_id=row.get("mergedThoughtId"),
    )


def episode_from_row(row: Mapping[str, Any]) -> Episode:
    kinds = row.get("artifactKinds") or []
    refs = row.get("artifactRefs") or []
    return Episode(
        id=row["id"],
        namespace=row["namespace"],
        title=row["title"],
        narrative=row["narrative"],
        summary=row["summary"],
        compressed=row["compressed"],
        index_label=row["indexLabel"],
        artifacts=tuple(Artifact(kind=k, ref=r) for k, r in zip(kinds, refs, strict=False)),
        thought_ids=tuple(row.get("thoughtIds") or ()),
        created_at_ms=int(row["createdAt"]),
        extractor=row.get("extractor") or "offline",
        scope=Scope(row.get("scope") or DEFAULT_SCOPE),
        owner_id=row.get("ownerId"),
    )


def run_from_row(row: Mapping[str, Any]) -> ConsolidationRun:
    return ConsolidationRun(
        id=row["id"],
        namespace=row["namespace"],
        status=RunStatus(row["status"]),
        dry_run=bool(row.get("dryRun")),
        trigger=row.get("trigger") or "api",
        requested_at_ms=int(row["requestedAt"]),
        started_at_ms=optional_int(row.get("startedAt")),
        finished_at_ms=optional_int(row.get("finishedAt")),
        attempts=int(row.get("attempts") or 0),
        counts=RunCounts.model_validate(json.loads(row.get("counts") or "{}")),
        usage=RunUsage.model_validate(json.loads(row.get("usage") or "{}")),
        error=row.get("error"),
    )
