"""Parameters shared by many statements: a write's change event (the append_change macro)
and a read's time view (the visible macro), see app/store/cypher.py."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from app.domain.changes import Actor, ChangeKind, SubjectKind
from app.domain.models import TimeView, now_ms


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
    }
