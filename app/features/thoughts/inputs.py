"""What a contribution carries, checked once: the input an agent sends, its validated
form, and the thought a write stores from it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from thoughtgraph.domain import validation as check
from thoughtgraph.domain.errors import InvalidInputError
from thoughtgraph.domain.models import Contribution, Thought, ThoughtKind, ThoughtType
from thoughtgraph.domain.rules import inherited_pheromone
from thoughtgraph.domain.scopes import DEFAULT_SCOPE, Scope


@dataclass(frozen=True)
class ThoughtInput:
    """What an agent sends with every contribution."""

    content: str
    agent_id: str
    agent_name: str
    namespace: str = "default"
    context: str | None = None
    session_id: str | None = None
    tags: Sequence[str] = ()
    key_id: str | None = None  # the API key that wrote it, for the change log
    kind: ThoughtKind = ThoughtKind.FACT
    salience: float = 0.5
    importance: int = 3
    pinned: bool = False
    category: str | None = None
    valid_from_ms: int | None = None
    valid_to_ms: int | None = None
    episode_id: str | None = None
    scope: Scope | None = None  # None: the namespace's default
    owner_id: str | None = None  # a private thought's user (set from the key when there is one)
    about: str | None = None  # the person (user id) a person field is about


@dataclass(frozen=True)
class BatchWrite:
    """A batch's contributions in input order, and how many of them were new (a retried
    batch finds the rest stored)."""

    contributions: list[Contribution]
    written: int


@dataclass(frozen=True)
class ValidatedInput:
    content: str
    agent_id: str
    agent_name: str
    namespace: str
    context: str | None
    session_id: str | None
    tags: tuple[str, ...]
    reason: str | None
    key_id: str | None
    kind: ThoughtKind
    salience: float
    importance: int
    pinned: bool
    category: str | None
    valid_from_ms: int | None
    valid_to_ms: int | None
    episode_id: str | None
    scope: Scope
    owner_id: str | None
    about: str | None


def validate_input(data: ThoughtInput, reason: str | None) -> ValidatedInput:
    check.require_float_range("salience", data.salience, 0.0, 1.0)
    check.require_int_range("importance", data.importance, 1, 5)
    if (
        data.valid_from_ms is not None
        and data.valid_to_ms is not None
        and data.valid_to_ms <= data.valid_from_ms
    ):
        raise InvalidInputError("validTo must be after validFrom", field="validTo")
    return ValidatedInput(
        content=check.require_text("content", data.content, check.MAX_CONTENT_CHARS),
        agent_id=check.require_identifier("agentId", data.agent_id.strip()),
        agent_name=check.require_name("agentName", data.agent_name),
        namespace=check.require_namespace(data.namespace),
        context=check.optional_text("context", data.context, check.MAX_CONTEXT_CHARS),
        session_id=check.optional_identifier("sessionId", data.session_id),
        tags=check.require_tags(data.tags),
        reason=check.optional_text("reason", reason, check.MAX_REASON_CHARS),
        key_id=data.key_id,
        kind=data.kind,
        salience=data.salience,
        importance=data.importance,
        pinned=data.pinned,
        category=(
            check.require_name("category", data.category) if data.category is not None else None
        ),
        valid_from_ms=data.valid_from_ms,
        valid_to_ms=data.valid_to_ms,
        episode_id=data.episode_id,
        scope=data.scope or DEFAULT_SCOPE,
        owner_id=check.optional_identifier("userId", data.owner_id),
        about=check.optional_identifier("about", data.about),
    )


def new_thought(
    data: ValidatedInput,
    kind: ThoughtType,
    thought_id: str,
    now_ms: int,
    *,
    source_ids: tuple[str, ...] = (),
    pheromone_weight: float | None = None,
    episode_id: str | None = None,
) -> Thought:
    """The thought a write stores: the validated input, its type, id, time and lineage."""
    return Thought(
        id=thought_id,
        namespace=data.namespace,
        type=kind,
        content=data.content,
        agent_id=data.agent_id,
        agent_name=data.agent_name,
        context=data.context,
        session_id=data.session_id,
        tags=data.tags,
        pheromone_weight=(
            inherited_pheromone(kind, []) if pheromone_weight is None else pheromone_weight
        ),
        created_at_ms=now_ms,
        source_ids=source_ids,
        kind=data.kind,
        salience=data.salience,
        importance=data.importance,
        pinned=data.pinned,
        category=data.category,
        valid_from_ms=data.valid_from_ms,
        valid_to_ms=data.valid_to_ms,
        episode_id=episode_id,
        scope=data.scope,
        owner_id=data.owner_id,
        about=data.about,
    )
