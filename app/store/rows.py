"""Domain models from the scalar rows the statements project (see ``thought_fields``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.domain.models import ChangeEvent, ChangeKind, Thought, ThoughtType


def thought_from_row(row: Mapping[str, Any]) -> Thought:
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
    )


def event_from_row(row: Mapping[str, Any]) -> ChangeEvent:
    return ChangeEvent(
        id=row["id"],
        namespace=row["namespace"],
        revision=int(row["revision"]),
        kind=ChangeKind(row["kind"]),
        thought_id=row["thoughtId"],
        source_ids=tuple(row.get("sourceIds") or ()),
        actor_id=row["actorId"],
        actor_name=row["actorName"],
        at_ms=int(row["at"]),
        actor_key_id=row.get("actorKeyId"),
    )
