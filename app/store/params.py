"""Parameters shared by many statements: a write's change event (the append_change macro)
and a read's time view (the visible macro), see app/store/cypher.py."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from thoughtgraph.domain.changes import Actor, ChangeKind, SubjectKind
from thoughtgraph.domain.models import ThoughtRecord, TimeView, now_ms
from thoughtgraph.domain.retrieval import SearchFilter, UsagePolicy
from thoughtgraph.domain.scopes import Viewer


def change_params(
    kind: ChangeKind,
    subject_kind: SubjectKind,
    subject_id: str,
    *,
    actor: Actor,
    at_ms: int,
    related_ids: Sequence[str] = (),
    event_id: str | None = None,
) -> dict[str, Any]:
    """The event's parameters. Its id is deterministic (subject, kind, time) unless given,
    so a retried write that already landed is recognised, not logged twice."""
    return {
        "eventId": event_id or f"{subject_id}:{kind.value}:{at_ms}",
        "eventKind": kind.value,
        "subjectKind": subject_kind.value,
        "subjectId": subject_id,
        "relatedIds": list(related_ids),
        "actorId": actor.id,
        "actorName": actor.name,
        "actorKeyId": actor.key_id,
        "at": at_ms,
    }


def view_params(view: TimeView | None) -> dict[str, Any]:
    """The parameters of the visible() macro; no view: active and valid now."""
    if view is None:
        view = TimeView(now_ms=now_ms())
    return {
        "now": view.now_ms,
        "validAt": view.valid_at_ms,
        "knownAt": view.known_at_ms,
        "currentOnly": view.current_only,
        "includeForgotten": view.include_forgotten,
        **scope_params(view.viewer),
    }


def scope_params(viewer: Viewer) -> dict[str, Any]:
    """The parameters of the in_scope() macro."""
    return {"allScopes": viewer.trusted, "viewerId": viewer.user_id}


def thought_create_params(
    record: ThoughtRecord, *, event_id: str, event_kind: str
) -> dict[str, Any]:
    """The parameters of thought/create: the thought, its edges' reason and its event."""
    t = record.thought
    return {
        "id": t.id,
        "namespace": t.namespace,
        "type": t.type.value,
        "content": t.content,
        "agentId": t.agent_id,
        "agentName": t.agent_name,
        "context": t.context,
        "sessionId": t.session_id,
        "tags": list(t.tags),
        "pheromoneWeight": t.pheromone_weight,
        "createdAt": t.created_at_ms,
        "sourceIds": list(t.source_ids),
        "embedding": list(record.embedding),
        "reason": record.reason,
        "reasonEmbedding": list(record.reason_embedding) if record.reason_embedding else None,
        "kind": t.kind.value,
        "salience": t.salience,
        "importance": t.importance,
        "pinned": t.pinned,
        "category": t.category,
        "validFrom": t.valid_from_ms,
        "validTo": t.valid_to_ms,
        "episodeId": t.episode_id,
        "scope": t.scope.value,
        "ownerId": t.owner_id,
        "about": t.about,
        **change_params(
            ChangeKind(event_kind),
            SubjectKind.THOUGHT,
            t.id,
            actor=Actor(id=t.agent_id, name=t.agent_name, key_id=record.actor_key_id),
            at_ms=t.created_at_ms,
            related_ids=t.source_ids,
            event_id=event_id,
        ),
    }


def filter_params(
    search_filter: SearchFilter,
    min_retention: float | None,
    policy: UsagePolicy,
    *,
    kinds: list[str] | None = None,
) -> dict[str, Any]:
    """The parameters of the search_filter and retention macros (store/search_macros.py);
    ``kinds``, when given, the kinds the caller decided to search (else the filter's)."""
    f = search_filter
    return {
        "kinds": kinds if kinds is not None else [k.value for k in f.kinds] or None,
        "categories": list(f.categories) or None,
        "tags": list(f.tags) or None,
        "agentId": f.agent_id,
        "importanceMin": f.importance_min,
        "importanceMax": f.importance_max,
        "pinned": f.pinned,
        "updatedAfter": f.updated_after_ms,
        "updatedBefore": f.updated_before_ms,
        "states": [s.value for s in f.states] or None,
        "minRetention": min_retention,
        "halfLifeDays": policy.half_life_days,
        "activationBoost": policy.activation_boost,
        "citeWeight": policy.cite_weight,
        "ignorePenalty": policy.ignore_penalty,
    }
