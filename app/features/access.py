"""Key scope, checked once, by the services: a caller's role must allow the action and its
key the namespace. Every interface passes its caller; a call from inside the service (a
job, another service, the CLI) passes none and is trusted."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

from thoughtgraph.domain.access import Action, Principal
from thoughtgraph.domain.changes import Actor, ChangeEvent, SubjectKind
from thoughtgraph.domain.checkpoints import NO_USER
from thoughtgraph.domain.errors import ForbiddenError, ThoughtNotFoundError
from thoughtgraph.domain.models import Thought, TimeView
from thoughtgraph.domain.scopes import (
    SYSTEM_NEEDS_ADMIN,
    Scope,
    ScopePolicy,
    Viewer,
    may_change,
    written_scope,
)
from thoughtgraph.features.repositories import Repositories
from thoughtgraph.features.thoughts.inputs import ThoughtInput

# Who the change log names for a write without an API key (open local mode).
LOCAL_ACTOR = Actor(id="local", name="local")


def check_access(caller: Principal | None, action: Action, namespace: str | None) -> None:
    """FORBIDDEN when ``caller`` may not do ``action`` on ``namespace``."""
    if caller is not None:
        caller.require(action, namespace)


def written_as(caller: Principal | None, data: ThoughtInput, scopes: ScopePolicy) -> ThoughtInput:
    """A write through an API key is the key's agent's and user's, and the change log names
    the key; the agent and user the input names count only without a key (open local
    mode). The scope is the input's, or the namespace's default."""
    if caller is not None and caller.key_id is not None and caller.agent_id is not None:
        data = replace(
            data,
            agent_id=caller.agent_id,
            agent_name=caller.agent_name or caller.agent_id,
            key_id=caller.key_id,
        )
    scope, owner = scope_for(caller, scopes, data.namespace, data.scope, data.owner_id)
    return replace(data, scope=scope, owner_id=owner)


def scope_for(
    caller: Principal | None,
    scopes: ScopePolicy,
    namespace: str,
    requested: Scope | None,
    user_id: str | None,
) -> tuple[Scope, str | None]:
    """The scope and owner of what a caller writes: the scope asked for, else the
    namespace's default; the owner is the key's user (the named one in open local mode)."""
    keyed = caller is not None and caller.key_id is not None
    return written_scope(
        requested,
        scopes.default_for(namespace),
        user_id=caller.user if caller is not None and keyed else user_id,
        trusted=not keyed,
        admin=is_admin(caller),
    )


def is_admin(caller: Principal | None) -> bool:
    """An admin key, or no key at all (inside the service, open local mode)."""
    return caller is None or Action.ADMIN in caller.role.actions


def viewer_of(caller: Principal | None) -> Viewer:
    """Whose private thoughts a caller's reads see: a key's user's; inside the service
    (no caller) and open local mode, everyone's."""
    return Viewer.everyone() if caller is None else caller.viewer


def seen(thoughts: Mapping[str, Thought], viewer: Viewer) -> dict[str, Thought]:
    """The thoughts of a batch read the viewer may see."""
    return {tid: t for tid, t in thoughts.items() if t.seen_by(viewer)}


async def events_seen(
    repos: Repositories, namespace: str, events: Sequence[ChangeEvent], viewer: Viewer
) -> list[ChangeEvent]:
    """The events a viewer may see: none that names a thought, an episode, a consent
    request or a checkpoint it does not see, as its subject or among the others involved (a
    contradiction's pair, a merge's sources). A thought id the store no longer holds
    (purged) hides nothing."""
    if viewer.trusted:
        return list(events)
    named = {i for e in events for i in (e.subject_id, *e.source_ids)}
    episode_ids = [e.subject_id for e in events if e.subject_kind is SubjectKind.EPISODE]
    request_ids = [e.subject_id for e in events if e.subject_kind is SubjectKind.CONSENT_REQUEST]
    checkpoint_ids = [e.subject_id for e in events if e.subject_kind is SubjectKind.CHECKPOINT]
    thoughts = await repos.thoughts.get_many(namespace, list(named))
    episodes = await repos.episodes.get_many(namespace, episode_ids)
    requests = await repos.consent.get_many(namespace, request_ids)
    # A checkpoint is its user's alone (a key acting for no user: the user "-").
    owners = await repos.checkpoints.owners(namespace, checkpoint_ids)
    reader = viewer.user_id or NO_USER
    hidden = (
        {tid for tid, t in thoughts.items() if not t.seen_by(viewer)}
        | {eid for eid, e in episodes.items() if not e.seen_by(viewer)}
        | {rid for rid, r in requests.items() if not r.seen_by(viewer)}
        # A deleted checkpoint's events name no owner any more: hidden from users too.
        | {cid for cid in checkpoint_ids if owners.get(cid) != reader}
    )
    return [e for e in events if hidden.isdisjoint((e.subject_id, *e.source_ids))]


async def ids_seen(
    repos: Repositories, namespace: str, ids: Iterable[str], viewer: Viewer
) -> set[str]:
    """Which of ``ids`` name thoughts the viewer may see (all of them, for a trusted one)."""
    wanted = set(ids)
    if viewer.trusted:
        return wanted
    return set(seen(await repos.thoughts.get_many(namespace, list(wanted)), viewer))


async def require_seen(
    repos: Repositories, namespace: str, thought_id: str, caller: Principal | None
) -> None:
    """THOUGHT_NOT_FOUND, before anything is written, for a thought the caller may not see
    (another user's private one); a trusted caller costs no read."""
    viewer = viewer_of(caller)
    if not viewer.trusted and not seen(
        await repos.thoughts.get_many(namespace, [thought_id]), viewer
    ):
        raise ThoughtNotFoundError([thought_id])


def require_change(thoughts: Iterable[Thought], caller: Principal | None) -> None:
    """FORBIDDEN unless the caller may change each of ``thoughts`` (a system thought:
    admins only; every other one it sees)."""
    viewer = viewer_of(caller)
    admin = is_admin(caller)
    for thought in thoughts:
        if not may_change(viewer, thought.scope, thought.owner_id, admin=admin):
            raise ForbiddenError(SYSTEM_NEEDS_ADMIN)


def scoped(view: TimeView | None, caller: Principal | None, now_ms: int) -> TimeView:
    """A read's time view (None: active and valid now) seen by the caller."""
    base = view or TimeView(now_ms=now_ms)
    return base.model_copy(update={"viewer": viewer_of(caller)})


def actor_of(caller: Principal) -> Actor:
    """The actor of a write other than a contribution: the key's agent, and the key."""
    if caller.agent_id is None:
        return LOCAL_ACTOR.model_copy(update={"key_id": caller.key_id})
    return Actor(
        id=caller.agent_id, name=caller.agent_name or caller.agent_id, key_id=caller.key_id
    )


__all__ = [
    "LOCAL_ACTOR",
    "Action",
    "Principal",
    "actor_of",
    "check_access",
    "events_seen",
    "ids_seen",
    "require_change",
    "require_seen",
    "scope_for",
    "scoped",
    "seen",
    "viewer_of",
    "written_as",
]
