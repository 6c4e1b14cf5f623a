"""Domain models from the scalar rows the statements project (see ``thought_fields``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from thoughtgraph.domain.changes import ChangeEvent, ChangeKind, SubjectKind
from thoughtgraph.domain.models import Thought, ThoughtKind, ThoughtState, ThoughtType
from thoughtgraph.domain.ranking.scoring import RankingThought
from thoughtgraph.domain.scopes import DEFAULT_SCOPE, Scope


def optional_int(value: Any) -> int | None:
    return None if value is None else int(value)


def candidate_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows of a candidates statement (cypher/search/*_candidates) that carry a thought:
    its last row carries only ``seen`` when few thoughts passed."""
    return [row for row in rows if row["id"] is not None]


def thought_from_row(row: Mapping[str, Any]) -> Thought:
    """Properties written before a field existed read as its default."""
    return Thought(
        id=row["id"],
        namespace=row["namespace"],
        type=ThoughtType(row["type"]),
        content=row["content"],
        agent_id=row["agentId"],
        agent_name=row["agentName"],
        context=row.get("context"),
        session_id=row.get("sessionId"),
        tags=tuple(row.get("tags") or ()),
        pheromone_weight=float(row["pheromoneWeight"]),
        created_at_ms=int(row["createdAt"]),
        source_ids=tuple(row.get("sourceIds") or ()),
        revision=int(row.get("revision") or 0),
        kind=ThoughtKind(row.get("kind") or ThoughtKind.FACT),
        salience=float(row["salience"]) if row.get("salience") is not None else 0.5,
        importance=int(row["importance"]) if row.get("importance") is not None else 3,
        pinned=bool(row.get("pinned") or False),
        category=row.get("category"),
        last_accessed_at_ms=optional_int(row.get("lastAccessedAt")),
        access_count=int(row.get("accessCount") or 0),
        cite_count=int(row.get("citeCount") or 0),
        ignore_count=int(row.get("ignoreCount") or 0),
        last_cited_at_ms=optional_int(row.get("lastCitedAt")),
        state=ThoughtState(row.get("state") or ThoughtState.ACTIVE),
        purge_at_ms=optional_int(row.get("purgeAt")),
        valid_from_ms=optional_int(row.get("validFrom")),
        valid_to_ms=optional_int(row.get("validTo")),
        superseded_at_ms=optional_int(row.get("supersededAt")),
        superseded_by=row.get("supersededBy"),
        episode_id=row.get("episodeId"),
        topic_id=row.get("topicId"),
        scope=Scope(row.get("scope") or DEFAULT_SCOPE),
        owner_id=row.get("ownerId"),
        about=row.get("about"),
    )


def ranking_thought_from_row(row: Mapping[str, Any]) -> RankingThought:
    """A search candidate (``ranking_fields``), defaults as in ``thought_from_row``."""
    return RankingThought(
        id=row["id"],
        content=row["content"],
        kind=ThoughtKind(row.get("kind") or ThoughtKind.FACT),
        salience=float(row["salience"]) if row.get("salience") is not None else 0.5,
        created_at_ms=int(row["createdAt"]),
        valid_from_ms=optional_int(row.get("validFrom")),
        cite_count=int(row.get("citeCount") or 0),
        ignore_count=int(row.get("ignoreCount") or 0),
        pheromone_weight=float(row["pheromoneWeight"]),
        source_ids=tuple(row.get("sourceIds") or ()),
        superseded_by=row.get("supersededBy"),
    )


def event_from_row(row: Mapping[str, Any]) -> ChangeEvent:
    return ChangeEvent(
        id=row["id"],
        namespace=row["namespace"],
        revision=int(row["revision"]),
        kind=ChangeKind(row["kind"]),
        subject_kind=SubjectKind(row["subjectKind"]),
        subject_id=row["subjectId"],
        source_ids=tuple(row.get("sourceIds") or ()),
        actor_id=row["actorId"],
        actor_name=row["actorName"],
        at_ms=int(row["at"]),
        actor_key_id=row.get("actorKeyId"),
    )
